// A walked list asked again reads its page only and keeps the total it counted, as long as the store's change count
// (storage_store_changes, kept by triggers on the items) is what it was: every kind of write counts again, on the
// instance that wrote and on another one that shares the database. The list without a sort walks the store in
// creation order even in a small store; the sorted one walks only past about 1,000 matches (it is read by the
// general plan here, and must answer the same).
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  apiKeyCaller,
  client,
  item,
  listIds,
  OWNER_KEY,
  recordStatements,
  STORAGE_CONFIG,
  secondInstance,
} from './storage-kit.js';

describeEachEngine('storage list totals kept between changes', (engine) => {
  let t: TestApp;
  let owner: ReturnType<typeof client>;
  let other: ReturnType<typeof client>;
  const filter = JSON.stringify([{ property: 'value.kind', operator: 'eq', value: 'a' }]);
  const sorted = { filter, sort: 'value.n|DESC', limit: 2 };
  const unsorted = { filter, limit: 2 };

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
    other = client(t, apiKeyCaller('other', 'k-other-0123456789'));
    for (let i = 0; i < 6; i++)
      expect((await owner.put('totals', `t${i}`, item({ n: i, kind: i < 4 ? 'a' : 'b' }))).statusCode).toBe(200);
  });
  afterAll(() => t.close());

  /** The list's answer and whether it counted its matches (the guards statement) to give it. */
  async function listed(params: Record<string, string | number>, c = owner) {
    const recorded = recordStatements(t);
    try {
      const answer = await listIds(c, 'totals', params);
      return { ...answer, counted: recorded.texts.some((text) => text.includes('AS unindexed')) };
    } finally {
      recorded.stop();
    }
  }

  it('counts once while the store is unchanged, and again after each kind of write', async () => {
    const first = await listed(unsorted);
    expect(first.total).toBe(await currentTotal());
    expect(first.counted).toBe(true);
    expect(await listed(unsorted)).toEqual({ ...first, counted: false });
    const writes: Array<[string, () => Promise<{ statusCode: number }>, number]> = [
      ['create a match', () => owner.put('totals', 'new', item({ n: 9, kind: 'a' })), +1],
      ['create another item', () => owner.put('totals', 'other', item({ n: 10, kind: 'b' })), 0],
      ['update a match so that it no longer matches', () => owner.put('totals', 't0', item({ n: 0, kind: 'b' })), -1],
      ['update an item so that it matches', () => owner.put('totals', 't5', item({ n: 5, kind: 'a' })), +1],
      [
        'take away the caller`s read',
        () => owner.put('totals', 't1', item({ n: 1, kind: 'a' }, { readRestriction: { roles: ['nobody'] } })),
        -1,
      ],
      ['delete a match', () => owner.remove('totals', 't2'), -1],
    ];
    let expected = await currentTotal();
    for (const [what, write, change] of writes) {
      const res = await write();
      expect(res.statusCode, what).toBe(200);
      expected += change;
      const again = await listed(unsorted);
      expect({ what, total: again.total, counted: again.counted }).toEqual({ what, total: expected, counted: true });
      expect((await listed(unsorted)).counted, what).toBe(false);
      expect((await listed(sorted)).total, what).toBe(expected);
    }
    expect((await listed(sorted)).ids).toEqual(['new', 't5']);
    expect((await listed(unsorted)).ids).toEqual(['t3', 't5']);
  });

  it('answers an empty list asked again from the change count alone, until a write makes it match', async () => {
    const none = { filter: JSON.stringify([{ property: 'value.kind', operator: 'eq', value: 'polled' }]), limit: 5 };
    expect(await listed(none)).toEqual({ total: 0, ids: [], counted: true });
    const recorded = recordStatements(t);
    try {
      expect(await listIds(owner, 'totals', none)).toEqual({ total: 0, ids: [] });
    } finally {
      recorded.stop();
    }
    // Only the store's change count is read, once: the list's own (its kept answer still holds), which gives the
    // entity tag too (a GET without If-None-Match); no item, value or access row.
    expect(recorded.texts).toHaveLength(1);
    for (const text of recorded.texts) {
      expect(text).toContain('storage_store_changes');
      expect(text).not.toMatch(/storage_items|storage_item_|storage_value/);
    }
    expect((await owner.put('totals', 'polled', item({ n: 20, kind: 'polled' }))).statusCode).toBe(200);
    expect(await listed(none)).toEqual({ total: 1, ids: ['polled'], counted: true });
    expect((await owner.remove('totals', 'polled')).statusCode).toBe(200);
    expect(await listed(none)).toEqual({ total: 0, ids: [], counted: true });
  });

  it('keeps each caller`s own total', async () => {
    const mine = await listed(sorted);
    const theirs = await listed(sorted, other);
    expect(theirs.total).toBe(0);
    expect(mine.total).toBeGreaterThan(0);
    expect((await listed(sorted)).total).toBe(mine.total);
    expect((await listed(sorted, other)).total).toBe(0);
  });

  it('counts again after a write through another instance on the same database', async () => {
    const second = await secondInstance(t);
    try {
      const before = await listed(unsorted);
      expect((await listed(unsorted)).counted).toBe(false);
      const res = await second.app.inject({
        method: 'PUT',
        url: '/cxf/svc-core/storage/store/totals/elsewhere',
        headers: { 'x-apikey': OWNER_KEY, 'content-type': 'application/json' },
        payload: JSON.stringify(item({ n: 11, kind: 'a' })),
      });
      expect(res.statusCode, res.body).toBe(200);
      const after = await listed(unsorted);
      expect(after).toMatchObject({ total: before.total + 1, counted: true });
      expect((await listed(sorted)).ids[0]).toBe('elsewhere');
    } finally {
      await second.close();
    }
  });

  it('counts again after the items are removed by hand (PostgreSQL: TRUNCATE, which fires no delete trigger; the page is empty then)', async () => {
    expect((await listed(unsorted)).total).toBeGreaterThan(0);
    expect((await listed(unsorted)).counted).toBe(false);
    const tables = ['storage_items', 'storage_item_access', 'storage_item_values', 'storage_item_words'];
    if (engine === 'postgres') await sql.raw(`TRUNCATE ${tables.join(', ')}`).execute(t.database.db);
    else for (const table of tables) await sql.raw(`DELETE FROM ${table}`).execute(t.database.db);
    expect(await listed(unsorted)).toEqual({ total: 0, ids: [], counted: true });
  });

  /** The total counted without the walk (the general plan: limit 0 counts only). */
  async function currentTotal(): Promise<number> {
    return (await listIds(owner, 'totals', { filter, limit: 0 })).total;
  }
});
