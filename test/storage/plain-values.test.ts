// Lists are compiled for plain values first (storage.query.ts, platform/query ValueIndexSource.plain): SQL without the
// parts that read documents, valid while the paths the list filters on hold no arrays and no long strings and every
// item is indexed, which each statement checks. Kept compiles must see a store stop being plain at once: an array, a
// long string or an item beyond the index's caps written after the list was compiled is found by the next list, on
// every plan a list can take (a walk of the sort's index, the general page, a count alone, an empty page).
import { describe, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';
import { item, listIds, ownerApp, recordStatements, UNKEPT_CONFIG } from './storage-kit.js';

const filter = (property: string, value: unknown) => JSON.stringify([{ property, operator: 'eq', value }]);
const LONG = `open ${'x'.repeat(400)}`;

describeEachEngine('storage lists compiled for plain values', (engine) => {
  const app = ownerApp(engine, UNKEPT_CONFIG);

  /** Items p0..p4: status 'open' and 'closed' alternately, title 't<i>', n = i. */
  async function plainStore(store: string): Promise<void> {
    for (let i = 0; i < 5; i++) {
      const res = await app.owner.put(
        store,
        `p${i}`,
        item({ n: i, status: i % 2 === 0 ? 'open' : 'closed', title: `t${i}` }),
      );
      expect(res.statusCode, res.body).toBe(200);
    }
  }

  /**
   * The list with each plan it can take: walked by the sort, the general page (sorted by a column: creation order
   * here), the count alone; and walked in creation order (no sort), which must be the general page.
   */
  async function everyPlan(store: string, property: string, value: unknown) {
    const page = await listIds(app.owner, store, { filter: filter(property, value), sort: 'createdOn|ASC', limit: 10 });
    expect(await listIds(app.owner, store, { filter: filter(property, value), limit: 10 })).toEqual(page);
    return {
      walked: await listIds(app.owner, store, { filter: filter(property, value), sort: 'value.n|DESC', limit: 2 }),
      page,
      counted: (await listIds(app.owner, store, { filter: filter(property, value), limit: 0 })).total,
    };
  }

  it('reads a plain store without the parts that read documents', async () => {
    await plainStore('plain-a');
    const params = (limit: number) => ({ filter: filter('value.status', 'open'), limit });
    await listIds(app.owner, 'plain-a', params(10));
    const recorded = recordStatements(app.t);
    try {
      expect(await listIds(app.owner, 'plain-a', params(10))).toEqual({ total: 3, ids: ['p0', 'p2', 'p4'] });
      expect((await listIds(app.owner, 'plain-a', params(0))).total).toBe(3);
    } finally {
      recorded.stop();
    }
    // The list (its page walked in creation order; its total as the first list counted it, the store unchanged) and
    // the count (from the kept counts of the values: storage_value_counts).
    const lists = recorded.texts.filter(
      (text) => text.includes('storage_item_values') || text.includes('storage_value_counts'),
    );
    expect(lists.length).toBe(2);
    // The general compile reads the documents of long strings and unindexed items (`#>` on PostgreSQL, json_ on SQLite).
    for (const text of lists) expect(text, text).not.toMatch(/#>|json_each|json_extract|json_type/);
  });

  it('finds an array written after the list was compiled, on every plan', async () => {
    await plainStore('plain-b');
    expect(await everyPlan('plain-b', 'value.status', 'open')).toEqual({
      walked: { total: 3, ids: ['p4', 'p2'] },
      page: { total: 3, ids: ['p0', 'p2', 'p4'] },
      counted: 3,
    });
    expect(
      (await app.owner.put('plain-b', 'arr', item({ n: 9, status: ['pending', 'open'], title: 'arr' }))).statusCode,
    ).toBe(200);
    expect(await everyPlan('plain-b', 'value.status', 'open')).toEqual({
      walked: { total: 4, ids: ['arr', 'p4'] },
      page: { total: 4, ids: ['p0', 'p2', 'p4', 'arr'] },
      counted: 4,
    });
  });

  it('finds a long string written after the list was compiled, on every plan', async () => {
    await plainStore('plain-c');
    expect(await everyPlan('plain-c', 'value.title', LONG)).toEqual({
      walked: { total: 0, ids: [] },
      page: { total: 0, ids: [] },
      counted: 0,
    });
    expect(await everyPlan('plain-c', 'value.title', 't1')).toEqual({
      walked: { total: 1, ids: ['p1'] },
      page: { total: 1, ids: ['p1'] },
      counted: 1,
    });
    expect((await app.owner.put('plain-c', 'long', item({ n: 9, status: 'open', title: LONG }))).statusCode).toBe(200);
    expect((await app.owner.put('plain-c', 'long2', item({ n: 8, status: 'open', title: LONG }))).statusCode).toBe(200);
    expect(await everyPlan('plain-c', 'value.title', LONG)).toEqual({
      walked: { total: 2, ids: ['long', 'long2'] },
      page: { total: 2, ids: ['long', 'long2'] },
      counted: 2,
    });
    expect(await everyPlan('plain-c', 'value.title', 't1')).toEqual({
      walked: { total: 1, ids: ['p1'] },
      page: { total: 1, ids: ['p1'] },
      counted: 1,
    });
  });

  it('finds an item beyond the index caps written after the list was compiled, on every plan', async () => {
    await plainStore('plain-d');
    expect((await everyPlan('plain-d', 'value.status', 'open')).counted).toBe(3);
    const leaves = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`k${i}`, i]));
    expect((await app.owner.put('plain-d', 'big', item({ n: 9, status: 'open', leaves }))).statusCode).toBe(200);
    expect(await everyPlan('plain-d', 'value.status', 'open')).toEqual({
      walked: { total: 4, ids: ['big', 'p4'] },
      page: { total: 4, ids: ['p0', 'p2', 'p4', 'big'] },
      counted: 4,
    });
    // A bare term and a filter on another path see it as well.
    expect((await listIds(app.owner, 'plain-d', { query: '1999' })).ids).toEqual(['big']);
    expect((await listIds(app.owner, 'plain-d', { filter: filter('value.leaves.k1999', 1999) })).ids).toEqual(['big']);
  });

  describe('a store that holds arrays from the start', () => {
    it('answers as the general compile does, again and again', async () => {
      for (let i = 0; i < 4; i++) {
        const status = i === 0 ? ['open', 'x'] : i % 2 === 0 ? 'open' : 'closed';
        expect((await app.owner.put('plain-e', `e${i}`, item({ n: i, status }))).statusCode).toBe(200);
      }
      for (let round = 0; round < 3; round++) {
        expect(await everyPlan('plain-e', 'value.status', 'open')).toEqual({
          walked: { total: 2, ids: ['e2', 'e0'] },
          page: { total: 2, ids: ['e0', 'e2'] },
          counted: 2,
        });
      }
    });
  });
});
