// Latest-version reads that arrive together are answered by one statement (forms.repository.ts, readLatest);
// each caller must still get its own tenant's form, in its latest version, or its own 404.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { ADMIN_KEY, OTHER_TENANT_ADMIN_KEY, addVersion, call, formBody, FORMS_CONFIG } from './forms-fixtures.js';

describeEachEngine('forms latest-version reads arriving together', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(engine, FORMS_CONFIG);
    // acme: alpha in 3 versions, beta in 1; other: its own alpha in 2 versions, gamma in 1.
    for (let v = 1; v <= 3; v++) await addVersion(t, 'alpha', formBody(`acme alpha ${v}`));
    await addVersion(t, 'beta', formBody('acme beta 1'));
    for (let v = 1; v <= 2; v++) await addVersion(t, 'alpha', formBody(`other alpha ${v}`), OTHER_TENANT_ADMIN_KEY);
    await addVersion(t, 'gamma', formBody('other gamma 1'), OTHER_TENANT_ADMIN_KEY);
  });
  afterAll(() => t.close());

  it('answers each of many concurrent reads with its own tenant and latest version', async () => {
    const expected: Array<{ key: string; form: string; status: number; name?: string; version?: number }> = [
      { key: ADMIN_KEY, form: 'alpha', status: 200, name: 'acme alpha 3', version: 3 },
      { key: ADMIN_KEY, form: 'beta', status: 200, name: 'acme beta 1', version: 1 },
      { key: ADMIN_KEY, form: 'gamma', status: 404 },
      { key: ADMIN_KEY, form: 'missing', status: 404 },
      { key: OTHER_TENANT_ADMIN_KEY, form: 'alpha', status: 200, name: 'other alpha 2', version: 2 },
      { key: OTHER_TENANT_ADMIN_KEY, form: 'beta', status: 404 },
      { key: OTHER_TENANT_ADMIN_KEY, form: 'gamma', status: 200, name: 'other gamma 1', version: 1 },
    ];
    const all = [...expected, ...expected, ...expected, ...expected].sort(() => Math.random() - 0.5);
    const responses = await Promise.all(all.map((c) => call(t, 'GET', `/forms/${c.form}`, { key: c.key })));
    responses.forEach((res, n) => {
      const c = all[n]!;
      expect({ ...c, status: res.statusCode }).toMatchObject({ key: c.key, form: c.form, status: c.status });
      if (c.status === 200) expect(res.json()).toMatchObject({ id: c.form, name: c.name, version: c.version });
    });
  });
});
