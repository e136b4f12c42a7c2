// storage-018 (PostgreSQL): storage_value_counts keeps one index, unique on its plain key columns with nulls equal (the
// count not in it, the table with room for updates on their page), where storage-011 made a unique index on a
// coalesced key and a lookup index. The counts' upserts take it as their arbiter and the kept totals' lookups read it;
// a database migrated with counts in it keeps them.
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrateToLatest } from '../../src/platform/db/migrations.js';
import { MIGRATIONS } from '../../src/module-list.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { item, listIds, ownerApp, putItems } from './storage-kit.js';

const STORAGE_018 = '2026-12-07-storage-018-one-value-count-index';
const STATUSES = ['open', 'closed', 'pending'];

/** Each count row's n against the value rows it counts (countedRow): the rows that differ, none where all are kept. */
async function countDrift(db: any): Promise<unknown[]> {
  const { rows } = await sql`with kept as (
      select vk, t, num, str, rs, cast(sum(n) as integer) as n from storage_value_counts group by vk, t, num, str, rs having sum(n) <> 0),
    counted as (
      select vk, t, num, str, rs, cast(count(*) as integer) as n from storage_item_values
      where elem = 0 and t in (0, 1, 2) and rs is not null group by vk, t, num, str, rs)
    select coalesce(k.vk, c.vk) as vk, coalesce(k.num, c.num) as num, coalesce(k.str, c.str) as str, k.n as kept,
      c.n as counted
    from kept k full join counted c on k.vk = c.vk and k.t = c.t and k.num is not distinct from c.num
      and k.str is not distinct from c.str and k.rs = c.rs
    where k.n is distinct from c.n`.execute(db);
  return rows;
}

describeEachEngine('storage value counts index', (engine) => {
  const app = ownerApp(engine);
  const db = () => app.t.database.db as any;
  const body = (i: number, extra = 0) => ({
    id: `i${i}`,
    item: item(
      { status: STATUSES[(i + extra) % 3], price: (i * 7 + extra) % 20, flag: i % 2 === 0 },
      { readRestriction: { roles: ['OWNER', `r${i % 4}`] } },
    ),
  });
  /** The kept totals of a string value, a number range and a boolean, each with the exact total beside it. */
  const totals = async (store: string) => {
    const out: Array<[string, number]> = [];
    for (const filter of [
      [{ property: 'value.status', operator: 'eq', value: 'open' }],
      [
        { property: 'value.price', operator: 'gte', value: 5 },
        { property: 'value.price', operator: 'lt', value: 12 },
      ],
      [{ property: 'value.flag', operator: 'eq', value: true }],
    ])
      out.push([JSON.stringify(filter), (await listIds(app.owner, store, { filter: JSON.stringify(filter) })).total]);
    return out;
  };

  it.runIf(engine === 'postgres')(
    'has one index on the counts, unique with nulls equal, room for updates',
    async () => {
      const { rows } = await sql<{
        indexname: string;
        indexdef: string;
      }>`select indexname, indexdef from pg_indexes
      where schemaname = current_schema() and tablename = 'storage_value_counts'`.execute(db());
      expect(rows).toHaveLength(1);
      expect(rows[0].indexname).toBe('storage_value_counts_uq');
      expect(rows[0].indexdef).toMatch(/UNIQUE INDEX .*\(vk, t, num, str, rs, shard\) NULLS NOT DISTINCT$/);
      const options = await sql<{ relname: string; reloptions: string[] }>`select relname, reloptions from pg_class
      where oid in ('storage_value_counts'::regclass, 'storage_term_counts'::regclass) order by relname`.execute(db());
      expect(options.rows).toEqual([
        { relname: 'storage_term_counts', reloptions: ['fillfactor=70'] },
        { relname: 'storage_value_counts', reloptions: ['fillfactor=70'] },
      ]);
    },
  );

  it('keeps the counts of creates, updates and deletes exact, and the totals with them', async () => {
    await putItems(app.owner, 'counted', 60, (i) => body(i));
    for (let i = 0; i < 60; i++) expect((await app.owner.create('counted', body(i).item)).statusCode).toBe(200);
    // Each value again, some changed, some deleted: updates take a count from one row and give it to another.
    await putItems(app.owner, 'counted', 30, (i) => body(i, 1));
    for (let i = 30; i < 40; i++) expect((await app.owner.remove('counted', `i${i}`)).statusCode).toBe(200);
    expect(await countDrift(db())).toEqual([]);
    const kept = await totals('counted');
    // The same filters with a second predicate on another path are counted, not kept: the two must agree.
    for (const [filter, total] of kept) {
      const counted = [...JSON.parse(filter), { property: 'value.status', operator: 'ne', value: 'none' }];
      expect((await listIds(app.owner, 'counted', { filter: JSON.stringify(counted) })).total, filter).toBe(total);
    }
    expect(kept.map(([, total]) => total).every((total) => total > 0)).toBe(true);
  });

  it.runIf(engine === 'postgres')('migrates a database with counts in it, which keep counting after', async () => {
    await putItems(app.owner, 'migrated', 40, (i) => body(i));
    const before = await totals('migrated');
    // The schema before storage-018: its two indexes and the trigger's upsert on the coalesced key; then the step again.
    await sql`drop index storage_value_counts_uq`.execute(db());
    await sql`create unique index storage_value_counts_key_uq on storage_value_counts
      (vk, t, (coalesce(num, 0)), (coalesce(str, '')), rs, shard)`.execute(db());
    await sql`create index storage_value_counts_lookup_idx on storage_value_counts (vk, t, num, str, rs, n)`.execute(
      db(),
    );
    const { rows } = await sql<{
      body: string;
    }>`select prosrc as body from pg_proc where oid = 'storage_item_values_count'::regproc`.execute(db());
    const old = rows[0].body.replaceAll(
      'on conflict (vk, t, num, str, rs, shard)',
      `on conflict (vk, t, (coalesce(num, 0)), (coalesce(str, '')), rs, shard)`,
    );
    expect(old).not.toBe(rows[0].body);
    await sql`create or replace function storage_item_values_count() returns trigger language plpgsql as ${sql.lit(old)}`.execute(
      db(),
    );
    await putItems(app.owner, 'migrated', 10, (i) => body(i, 2)); // counted under the old key
    await sql`delete from kysely_migration where name = ${STORAGE_018}`.execute(db());
    expect(await migrateToLatest(db(), app.t.database.dialect, MIGRATIONS)).toEqual([STORAGE_018]);
    expect(await countDrift(db())).toEqual([]);
    await putItems(app.owner, 'migrated', 40, (i) => body(i, 1));
    expect(await countDrift(db())).toEqual([]);
    const after = await totals('migrated');
    expect(after).not.toEqual(before);
  });
});
