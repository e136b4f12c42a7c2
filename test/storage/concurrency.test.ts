// Many requests on one item at once leave one consistent item: one row, access rows matching its restrictions.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { apiKeyCaller, client, OWNER_KEY, STORAGE_CONFIG } from './storage-kit.js';

describeEachEngine('storage concurrency', (engine) => {
  let t: TestApp;
  let owner: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
  });
  afterAll(() => t.close());

  const bodyFor = (i: number) => ({
    value: { writer: i },
    readRestriction: { roles: ['OWNER', `reader-${i}`] },
    writeRestriction: i % 2 ? { roles: ['OWNER'], rights: [`w-${i}`] } : { roles: ['OWNER'] },
  });

  async function expectConsistent(store: string, id: string) {
    const rows = await t.database.db
      .selectFrom('storage_items')
      .select(['seq', 'doc'])
      .where('store_id', '=', store)
      .where('item_id', '=', id)
      .execute();
    expect(rows).toHaveLength(1);
    const doc = t.database.dialect.fromJson<any>(rows[0].doc);
    const access = await t.database.db
      .selectFrom('storage_item_access')
      .select(['mode', 'grantee'])
      .where('item_seq', '=', rows[0].seq)
      .orderBy('mode')
      .orderBy('grantee')
      .execute();
    const expected = [
      ...doc.readRestriction.roles.map((r: string) => ({ mode: 'r', grantee: `role:${r}` })),
      ...doc.writeRestriction.roles.map((r: string) => ({ mode: 'w', grantee: `role:${r}` })),
      ...(doc.writeRestriction.rights ?? []).map((r: string) => ({ mode: 'w', grantee: `right:${r}` })),
    ].sort((a, b) => (a.mode + a.grantee < b.mode + b.grantee ? -1 : 1));
    expect(access).toEqual(expected);
    return doc;
  }

  it('30 concurrent create-or-updates of one new id all succeed and leave one consistent item', async () => {
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? owner.put : owner.post)('race', 'one', bodyFor(i))),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(30).fill(200));
    const doc = await expectConsistent('race', 'one');
    expect(doc.readRestriction.roles).toEqual(['OWNER', `reader-${doc.value.writer}`]);
    const read = (await owner.read('race', 'one')).json();
    expect(read.value).toEqual(doc.value);
    expect(results.filter((r) => r.json().createdOn === read.createdOn)).toHaveLength(30);
  });

  it('concurrent updates and deletes of one id never answer 500 and leave it consistent or gone', async () => {
    await owner.put('race', 'two', bodyFor(0));
    const calls = Array.from({ length: 30 }, (_, i) =>
      i % 5 === 4 ? owner.remove('race', 'two') : owner.put('race', 'two', bodyFor(i)),
    );
    const results = await Promise.all(calls);
    for (const r of results) expect([200, 404]).toContain(r.statusCode);
    const exists = (await owner.read('race', 'two')).statusCode === 200;
    if (exists) await expectConsistent('race', 'two');
    else {
      const orphans = await t.database.db
        .selectFrom('storage_item_access as a')
        .leftJoin('storage_items as i', 'i.seq', 'a.item_seq')
        .select('a.item_seq')
        .where('i.seq', 'is', null)
        .execute();
      expect(orphans).toEqual([]);
    }
  });

  it('30 concurrent creates give 30 distinct items', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => owner.create('many', bodyFor(i))));
    expect(results.map((r) => r.statusCode)).toEqual(Array(30).fill(200));
    expect(new Set(results.map((r) => r.json().id)).size).toBe(30);
    expect((await owner.list('many')).json().total).toBe(30);
  });

  it('a refused write among concurrent ones changes nothing and does not undo the others', async () => {
    await owner.put('mixed', 'locked', {
      value: 'keep',
      readRestriction: { roles: ['OWNER'] },
      writeRestriction: { user: 'someone-else' },
    });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2 ? owner.put('mixed', 'locked', bodyFor(i)) : owner.put('mixed', `free-${i}`, bodyFor(i)),
      ),
    );
    results.forEach((r, i) => expect(r.statusCode).toBe(i % 2 ? 403 : 200));
    const list = (await owner.list('mixed')).json();
    expect(list.total).toBe(21);
    expect(list.items.find((x: any) => x.id === 'locked').value).toBe('keep');
    const access = await t.database.db
      .selectFrom('storage_item_access as a')
      .innerJoin('storage_items as i', 'i.seq', 'a.item_seq')
      .select(['a.mode', 'a.grantee'])
      .where('i.item_id', '=', 'locked')
      .orderBy('a.mode')
      .execute();
    expect(access).toEqual([
      { mode: 'r', grantee: 'role:OWNER' },
      { mode: 'w', grantee: 'user:someone-else' },
    ]);
    for (let i = 0; i < 40; i += 2) await expectConsistent('mixed', `free-${i}`);
  });
});
