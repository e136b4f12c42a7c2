// Item reads that arrive together are answered by one statement (store-item.repository.ts, readItems); each
// caller must still get exactly its own answer: its item, its access decision, its tenant.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { apiKeyCaller, client, STORAGE_CONFIG } from './storage-kit.js';

describeEachEngine('storage item reads arriving together', (engine) => {
  let t: TestApp;
  const callers = {
    kim: apiKeyCaller('kim', 'k-kim-0123456789'), // acme, roleA
    other: apiKeyCaller('other', 'k-other-0123456789'), // acme, roleB
    owner: apiKeyCaller('owner', 'k-owner-0123456789'), // acme, OWNER
    globex: apiKeyCaller('globex', 'k-globex-owner-0123'), // globex, OWNER
  };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    const restricted = (role: string, value: string) => ({
      value,
      readRestriction: { roles: [role] },
      writeRestriction: { roles: [role] },
    });
    for (const [name, caller, body] of [
      ['a', callers.owner, restricted('roleA', 'for roleA')],
      ['b', callers.owner, restricted('roleB', 'for roleB')],
      ['o', callers.owner, restricted('OWNER', 'for owners of acme')],
      ['g', callers.globex, restricted('OWNER', 'for owners of globex')],
    ] as const) {
      const res = await client(t, caller).create('shared', body);
      expect(res.statusCode).toBe(200);
      ids[name] = res.json().id;
    }
  });
  afterAll(() => t.close());

  it('answers each of many concurrent reads with its own item and its own access decision', async () => {
    // caller -> item -> expected status (and value when 200)
    const expected: Record<keyof typeof callers, Record<string, number>> = {
      kim: { a: 200, b: 403, o: 403, g: 404, missing: 404 },
      other: { a: 403, b: 200, o: 403, g: 404, missing: 404 },
      owner: { a: 403, b: 403, o: 200, g: 404, missing: 404 },
      globex: { a: 404, b: 404, o: 404, g: 200, missing: 404 },
    };
    const values: Record<string, string> = {
      a: 'for roleA',
      b: 'for roleB',
      o: 'for owners of acme',
      g: 'for owners of globex',
    };
    const cases = Object.entries(expected).flatMap(([who, items]) =>
      Object.entries(items).map(([what, status]) => ({ who, what, status })),
    );
    const all = [...cases, ...cases, ...cases].sort(() => Math.random() - 0.5); // interleaved, several of each at once
    const responses = await Promise.all(
      all.map((c) => client(t, callers[c.who as keyof typeof callers]).read('shared', ids[c.what] ?? 'no-such-item')),
    );
    responses.forEach((res, n) => {
      const c = all[n]!;
      expect({ ...c, status: res.statusCode }).toEqual(c);
      if (c.status === 200) expect(res.json()).toMatchObject({ id: ids[c.what], value: values[c.what] });
    });
  });
});
