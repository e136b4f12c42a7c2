// Session checks that arrive together share one statement (identity.repository.ts, findLiveSessions); each request
// must still be its own session's user, and a session that ended must not ride along with live ones.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, login, startTestApp, type TestApp } from '../helpers/test-app.js';

const CONFIG = {
  tenants: [
    {
      name: 'acme',
      users: [
        { loginName: 'ann', password: 'ann-secret-1' },
        { loginName: 'bob', password: 'bob-secret-1', roles: ['R'] },
      ],
    },
    { name: 'globex', users: [{ loginName: 'ann', password: 'ann-secret-2', roles: ['G'] }] },
  ],
};

describeEachEngine('session checks arriving together', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, CONFIG);
  });
  afterAll(() => t.close());

  it('answers each of many concurrent requests as its own session user, and 401 for ended or unknown sessions', async () => {
    const acmeAnn = await login(t, 'acme', 'ann', 'ann-secret-1');
    const acmeBob = await login(t, 'acme', 'bob', 'bob-secret-1');
    const globexAnn = await login(t, 'globex', 'ann', 'ann-secret-2');
    const ended = await login(t, 'acme', 'bob', 'bob-secret-1');
    const out = await t.request({
      method: 'DELETE',
      url: '/cxf/svc-core/authentication',
      headers: { cookie: ended.cookie, 'x-csrf-token': ended.csrf },
    });
    expect(out.statusCode).toBe(200);

    const cases = [
      { cookie: acmeAnn.cookie, expect: { status: 200, tenant: 'acme', loginName: 'ann', roles: [] } },
      { cookie: acmeBob.cookie, expect: { status: 200, tenant: 'acme', loginName: 'bob', roles: ['R'] } },
      { cookie: globexAnn.cookie, expect: { status: 200, tenant: 'globex', loginName: 'ann', roles: ['G'] } },
      { cookie: ended.cookie, expect: { status: 401 } },
      { cookie: 'svc_session=not-a-session-0123456789', expect: { status: 401 } },
    ];
    const all = [...cases, ...cases, ...cases, ...cases].sort(() => Math.random() - 0.5);
    const responses = await Promise.all(
      all.map((c) =>
        t.request({ method: 'GET', url: '/cxf/svc-core/authentication/principal', headers: { cookie: c.cookie } }),
      ),
    );
    responses.forEach((res, n) => {
      const want = all[n]!.expect;
      const got = res.statusCode === 200 ? { status: 200, ...res.json() } : { status: res.statusCode };
      expect(got).toMatchObject(want);
    });
  });
});
