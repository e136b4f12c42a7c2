// A list's compiled SQL is kept and reused for the same parameters and caller (storage.query.ts): asked again, the
// answer is still the caller's own and the data's current one. Same parameters from callers of other grants, other
// stores and another tenant; the same list after a create, an update and a delete; the item's fields in the order
// the answer gives them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { apiKeyCaller, client, item, listIds, OWNER_KEY, STORAGE_CONFIG } from './storage-kit.js';

describeEachEngine('storage list reuse', (engine) => {
  let t: TestApp;
  let owner: ReturnType<typeof client>;
  let other: ReturnType<typeof client>;
  let globex: ReturnType<typeof client>;
  const params = {
    filter: JSON.stringify([{ property: 'value.kind', operator: 'eq', value: 'a' }]),
    sort: 'value.n|DESC',
    limit: 10,
  };
  const ids = (c: ReturnType<typeof client>, store: string) => listIds(c, store, params);

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
    other = client(t, apiKeyCaller('other', 'k-other-0123456789'));
    globex = client(t, apiKeyCaller('globex', 'k-globex-owner-0123'));
    for (let i = 0; i < 6; i++) {
      const read = { roles: i % 2 === 0 ? ['OWNER'] : ['OWNER', 'roleB'] };
      const res = await owner.put('reuse', `r${i}`, item({ n: i, kind: i < 5 ? 'a' : 'b' }, { readRestriction: read }));
      expect(res.statusCode, res.body).toBe(200);
    }
    expect((await owner.put('reuse2', 'x', item({ n: 1, kind: 'a' }))).statusCode).toBe(200);
  });
  afterAll(() => t.close());

  it('answers each caller, store and tenant its own items for the same parameters, again and again', async () => {
    for (let round = 0; round < 2; round++) {
      expect(await ids(owner, 'reuse')).toEqual({ total: 5, ids: ['r4', 'r3', 'r2', 'r1', 'r0'] });
      expect(await ids(other, 'reuse')).toEqual({ total: 2, ids: ['r3', 'r1'] });
      expect(await ids(owner, 'reuse2')).toEqual({ total: 1, ids: ['x'] });
      expect(await ids(globex, 'reuse')).toEqual({ total: 0, ids: [] });
    }
  });

  it('answers the data as it is now after a create, an update and a delete', async () => {
    expect(await ids(owner, 'reuse')).toEqual({ total: 5, ids: ['r4', 'r3', 'r2', 'r1', 'r0'] });
    expect((await owner.put('reuse', 'r9', item({ n: 9, kind: 'a' }))).statusCode).toBe(200);
    expect((await owner.put('reuse', 'r0', item({ n: 0, kind: 'b' }))).statusCode).toBe(200);
    expect((await owner.remove('reuse', 'r3')).statusCode).toBe(200);
    expect(await ids(owner, 'reuse')).toEqual({ total: 4, ids: ['r9', 'r4', 'r2', 'r1'] });
    expect(await ids(other, 'reuse')).toEqual({ total: 1, ids: ['r1'] });
  });

  it('answers every field of a listed item, the optional ones null when absent', async () => {
    const named = await owner.put('reuse3', 'named', item({ n: 1 }, { name: 'A name', moduleId: 'm1' }));
    expect(named.statusCode, named.body).toBe(200);
    expect((await owner.put('reuse3', 'bare', item({ n: 2, name: 'inside the value' }))).statusCode).toBe(200);
    const res = await owner.list('reuse3', { sort: 'value.n|ASC' });
    const [first, second] = res.json().items;
    expect(first).toMatchObject({
      id: 'named',
      name: 'A name',
      moduleId: 'm1',
      moduleInstanceId: null,
      value: { n: 1 },
    });
    expect(second).toMatchObject({
      id: 'bare',
      name: null,
      moduleId: null,
      moduleInstanceId: null,
      value: { n: 2, name: 'inside the value' },
    });
    const read = await owner.read('reuse3', 'named');
    expect(read.json()).toEqual(first);
  });
});
