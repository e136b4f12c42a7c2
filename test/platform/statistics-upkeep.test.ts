// Statistics upkeep on PostgreSQL: with autovacuum off (as on these machines), a table loaded in bulk is vacuumed and
// analysed by the service itself soon after, off the request path; a table that barely changed is left alone.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

(inject('pgUrl') ? describe : describe.skip)('statistics upkeep [postgres]', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('postgres', { database: { analyzeCheckSeconds: 0.2 } });
  });
  afterAll(() => t.close());

  const lastAnalyze = async (table: string) => {
    const { rows } = await sql<{ at: Date | null }>`select coalesce(last_analyze, last_autoanalyze) as at from pg_stat_user_tables
      where schemaname = current_schema() and relname = ${table}`.execute(t.database.db);
    return rows[0]?.at ?? null;
  };

  const lastVacuum = async (table: string) => {
    const { rows } = await sql<{ at: Date | null }>`select coalesce(last_vacuum, last_autovacuum) as at from pg_stat_user_tables
      where schemaname = current_schema() and relname = ${table}`.execute(t.database.db);
    return rows[0]?.at ?? null;
  };

  it('vacuums and analyses a table after a bulk load, and leaves a barely changed one alone', async () => {
    const autovacuum = (await sql<{ autovacuum: string }>`show autovacuum`.execute(t.database.db)).rows[0].autovacuum;
    await sql`insert into engine_items (scope, kind, id, doc, created_on, created_by)
      select 'bulk', 'task', 'id-' || g, '{}', g, 'seed' from generate_series(1, 5000) g`.execute(t.database.db);
    await sql`insert into engine_item_roles (scope, kind, role, item_seq) values ('bulk', 'task', 'r', 1)`.execute(t.database.db);
    let analysed = null;
    for (let i = 0; i < 100 && !analysed; i++) {
      await sleep(100);
      analysed = await lastAnalyze('engine_items');
    }
    expect(analysed, `engine_items analysed (autovacuum ${autovacuum})`).not.toBeNull();
    expect(await lastVacuum('engine_items'), 'engine_items vacuumed').not.toBeNull();
    if (autovacuum === 'off') {
      expect(await lastAnalyze('engine_item_roles')).toBeNull();
      expect(await lastVacuum('engine_item_roles')).toBeNull();
    }
    // Vacuumed: the visibility map lets an index-only scan answer without reading the table.
    const text = await t.database.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_bitmapscan = off`.execute(trx);
      const plan = await sql<{ 'QUERY PLAN': string }>`explain (analyze, format text) select seq from engine_items where scope = 'bulk' and kind = 'task' order by seq`.execute(trx);
      return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(text).toContain('Index Only Scan');
    expect(/Heap Fetches: (\d+)/.exec(text)?.[1]).toBe('0');
    const { rows } = await sql<{ n: number }>`select n_mod_since_analyze as n from pg_stat_user_tables where schemaname = current_schema() and relname = 'engine_items'`.execute(t.database.db);
    expect(Number(rows[0].n)).toBeLessThan(500);
  });
});

describe('statistics upkeep [sqlite]', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { database: { analyzeCheckSeconds: 0.2 } });
  });
  afterAll(() => t.close());

  it('gives the planner statistics of a table loaded in bulk (PRAGMA optimize), so a page of items is read by key', async () => {
    await sql`with recursive g(v) as (select 1 union all select v + 1 from g where v < 5000)
      insert into engine_items (scope, kind, id, doc, created_on, created_by) select 'bulk', 'task', 'id-' || v, '{}', v, 'seed' from g`.execute(t.database.db);
    let stats = 0;
    for (let i = 0; i < 100 && stats === 0; i++) {
      await sleep(100);
      stats = Number((await sql<{ n: number }>`select count(*) as n from sqlite_stat1 where tbl = 'engine_items'`.execute(t.database.db)).rows[0].n);
    }
    expect(stats).toBeGreaterThan(0);
  });
});
