// GET /cxf/svc-core/storage/store: the caller's stores with the number of items it may read in each.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  apiKeyCaller,
  client,
  expectErrorObject,
  OWNER_KEY,
  sessionCaller,
  STORAGE_CONFIG,
  STORE,
} from './storage-kit.js';

const restricted = (value: unknown, read: Record<string, unknown>) => ({
  value,
  readRestriction: read,
  writeRestriction: { roles: ['OWNER'] },
});

describeEachEngine('storage store list', (engine) => {
  let t: TestApp;
  let owner: ReturnType<typeof client>;
  let uma: ReturnType<typeof client>;
  let other: ReturnType<typeof client>;
  let globex: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
    uma = client(t, await sessionCaller(t, 'acme', 'uma', 'uma-secret-1'));
    other = client(t, apiKeyCaller('other', 'k-other-0123456789'));
    globex = client(t, apiKeyCaller('globex', 'k-globex-owner-0123'));
    // alpha: 3 for OWNER, 2 for roleA (uma), 1 for both; beta: 1 for uma by name; gamma: OWNER only.
    for (let i = 0; i < 3; i++) await owner.put('alpha', `o${i}`, restricted(i, { roles: ['OWNER'] }));
    for (let i = 0; i < 2; i++) await owner.put('alpha', `a${i}`, restricted(i, { roles: ['roleA'] }));
    await owner.put('alpha', 'both', restricted('both', { roles: ['OWNER', 'roleA'], organisations: ['orgA'] }));
    await owner.put('beta', 'mine', restricted('x', { user: 'uma' }));
    await owner.put('gamma', 'g', restricted('x', { roles: ['OWNER'] }));
    await globex.put('alpha', 'globex-only', restricted('x', { roles: ['OWNER'] }));
  });
  afterAll(() => t.close());

  const stores = async (c: ReturnType<typeof client>, qs = '') => {
    const res = await c.send('GET', `${STORE}${qs}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('lists each store with the items the caller may read, counting an item once', async () => {
    expect(await stores(owner)).toEqual({
      total: 2,
      stores: [
        { storeId: 'alpha', readableItems: 4 },
        { storeId: 'gamma', readableItems: 1 },
      ],
    });
    // uma reads alpha's a0, a1 and "both" (by role and by organisation: once), and beta's item by her name.
    expect(await stores(uma)).toEqual({
      total: 2,
      stores: [
        { storeId: 'alpha', readableItems: 3 },
        { storeId: 'beta', readableItems: 1 },
      ],
    });
  });

  it('leaves out stores where the caller may read nothing', async () => {
    expect(await stores(other)).toEqual({ total: 0, stores: [] });
  });

  it('keeps tenants apart', async () => {
    expect(await stores(globex)).toEqual({ total: 1, stores: [{ storeId: 'alpha', readableItems: 1 }] });
  });

  it('follows restriction changes and deletes', async () => {
    await owner.put('gamma', 'g', restricted('x', { roles: ['roleB'] }));
    expect(await stores(other)).toEqual({ total: 1, stores: [{ storeId: 'gamma', readableItems: 1 }] });
    expect((await stores(owner)).stores.map((s: { storeId: string }) => s.storeId)).toEqual(['alpha']);
    await owner.remove('gamma', 'g');
    expect(await stores(other)).toEqual({ total: 0, stores: [] });
  });

  it('pages by start and limit with the total', async () => {
    for (const id of ['p1', 'p2', 'p3']) await owner.put(id, 'x', restricted('x', { roles: ['OWNER'] }));
    expect(await stores(owner, '?start=1&limit=2')).toEqual({
      total: 4,
      stores: [
        { storeId: 'p1', readableItems: 1 },
        { storeId: 'p2', readableItems: 1 },
      ],
    });
    expect(await stores(owner, '?start=10')).toEqual({ total: 4, stores: [] });
  });

  it('answers bad paging with the error object, and no credential with 401', async () => {
    for (const qs of ['?limit=0', '?limit=1001', '?start=-1', '?start=x'])
      expectErrorObject(await owner.send('GET', `${STORE}${qs}`), 400);
    expectErrorObject(await t.request({ method: 'GET', url: STORE }), 401);
  });
});
