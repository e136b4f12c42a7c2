// A store filled in bulk and listed at once, before any statistics exist (PostgreSQL here runs with autovacuum off
// and the service's own upkeep is switched off for this test): the lists answer exactly what they answer once the
// statistics are fresh. Their speed right after a bulk load is measured in bench/storage-search.mjs.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { apiKeyCaller, client, OWNER_KEY, STORAGE_CONFIG } from './storage-kit.js';

const ITEMS = 1500;
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];

describeEachEngine('storage lists right after a bulk load', (engine) => {
  let t: TestApp;
  let owner: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await startTestApp(engine, { ...STORAGE_CONFIG, database: { analyzeCheckSeconds: 0 } });
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
    let next = 0;
    await Promise.all(
      Array.from({ length: 25 }, async () => {
        while (next < ITEMS) {
          const i = next++;
          const res = await owner.create('bulk', {
            value: {
              n: i,
              status: ['open', 'closed', 'done'][i % 3],
              owner: `u${i % 50}`,
              title: `Invoice ${i} ${WORDS[i % 5]}`,
            },
            readRestriction: { roles: i % 2 ? ['OWNER'] : ['OWNER', 'roleA'] },
            writeRestriction: { roles: ['OWNER'] },
          });
          if (res.statusCode !== 200) throw new Error(res.body);
        }
      }),
    );
  });
  afterAll(() => t.close());

  const LISTS: Array<Record<string, string>> = [
    {
      filter: JSON.stringify([{ property: 'value.status', operator: 'eq', value: 'open' }]),
      sort: 'value.n|DESC',
      limit: '50',
    },
    { filter: JSON.stringify([{ property: 'value.owner', operator: 'eq', value: 'u7' }]), sort: 'value.title|ASC' },
    {
      filter: JSON.stringify([
        { property: 'value.n', operator: 'gte', value: 700 },
        { property: 'value.status', operator: 'ne', value: 'done' },
      ]),
      start: '100',
      limit: '100',
    },
    { query: 'charlie AND value.status:closed', sort: 'value.n|ASC' },
    { query: 'invoice -bravo', limit: '0' },
  ];

  it('answers with stale statistics exactly as with fresh ones, for every reader', async () => {
    const kim = client(t, apiKeyCaller('kim', 'k-kim-0123456789'));
    const answers = async () =>
      Promise.all(
        [owner, kim].flatMap((c) =>
          LISTS.map(async (params) => {
            const res = await c.list('bulk', params);
            expect(res.statusCode, res.body).toBe(200);
            const body = res.json();
            return { total: body.total, ids: body.items.map((i: any) => i.value.n) };
          }),
        ),
      );
    const stale = await answers();
    // Not degenerate: the owner sees every match, kim half of them.
    expect(stale[0].total).toBe(ITEMS / 3);
    expect(stale[0].ids).toHaveLength(50);
    expect(stale[0].ids[0]).toBe(1497);
    expect(stale[LISTS.length].total).toBe(ITEMS / 6);
    expect(stale[4].total).toBe(ITEMS - ITEMS / 5);
    // Only this file's tables: a database-wide ANALYZE would also analyse the tables other test files are watching.
    if (engine === 'postgres')
      await sql`analyze storage_items, storage_item_access, storage_item_values, storage_value_keys, storage_item_words`.execute(
        t.database.db,
      );
    else await sql`analyze`.execute(t.database.db);
    expect(await answers()).toEqual(stale);
  });
});
