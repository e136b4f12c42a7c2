// A caller of another tenant sees nothing of a store: not its items, not that it exists.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  apiKeyCaller,
  client,
  expectErrorObject,
  item,
  OWNER_KEY,
  sessionCaller,
  STORAGE_CONFIG,
} from './storage-kit.js';

describeEachEngine('storage tenant isolation', (engine) => {
  let t: TestApp;
  let acme: ReturnType<typeof client>;
  let globexUma: ReturnType<typeof client>;
  let globexOwner: ReturnType<typeof client>;
  // Restrictions that the globex principals would match by name, organisation, role and right.
  const open = {
    value: 'acme secret',
    readRestriction: { organisations: ['orgA'], roles: ['OWNER', 'roleA'], rights: ['rightA'] },
    writeRestriction: { roles: ['OWNER', 'roleA'] },
  };

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    acme = client(t, apiKeyCaller('owner', OWNER_KEY));
    globexUma = client(t, await sessionCaller(t, 'globex', 'uma', 'uma-secret-2'));
    globexOwner = client(t, apiKeyCaller('owner', 'k-globex-owner-0123'));
    expect((await acme.put('shared', 'same-id', open)).statusCode).toBe(200);
    await acme.put('shared', 'by-user', { ...open, readRestriction: { user: 'uma' } });
    await acme.create('shared', open);
  });
  afterAll(() => t.close());

  it('answers 404 for an item of another tenant, even with matching names, roles and organisations', async () => {
    for (const c of [globexUma, globexOwner]) {
      expectErrorObject(await c.read('shared', 'same-id'), 404);
      expectErrorObject(await c.read('shared', 'by-user'), 404);
      expectErrorObject(await c.remove('shared', 'same-id'), 404);
    }
  });

  it('lists another tenant store as empty', async () => {
    for (const c of [globexUma, globexOwner]) expect((await c.list('shared')).json()).toEqual({ total: 0, items: [] });
  });

  it('a write of another tenant under the same store and item id creates a separate item', async () => {
    const res = await globexOwner.put('shared', 'same-id', item('globex value'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ value: 'globex value', createdBy: 'owner' });
    expect((await acme.read('shared', 'same-id')).json().value).toBe('acme secret');
    expect((await globexOwner.list('shared')).json().items.map((i: any) => i.value)).toEqual(['globex value']);
    expect((await acme.list('shared')).json().total).toBe(2); // by-user is uma's only
    expect((await globexOwner.remove('shared', 'same-id')).statusCode).toBe(200);
    expect((await acme.read('shared', 'same-id')).json().value).toBe('acme secret');
  });
});
