// Statistics upkeep on PostgreSQL: with autovacuum off (as on these machines), a table loaded in bulk is vacuumed and
// analysed by the service itself soon after, off the request path; a table that barely changed is left alone.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql, type RawBuilder } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { StatisticsUpkeep } from '../../src/platform/db/statistics-upkeep.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildApp, type App } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createProcessDatabase } from '../helpers/service-process.js';
import { pgbouncerBinary, reportMissingPgBouncer, startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

(inject('pgUrl') ? describe : describe.skip)('statistics upkeep [postgres]', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('postgres', { database: { analyzeCheckSeconds: 0.2 } });
  });
  afterAll(() => t.close());

  const lastAnalyze = async (table: string) => {
    const { rows } = await sql<{
      at: Date | null;
    }>`select coalesce(last_analyze, last_autoanalyze) as at from pg_stat_user_tables
      where schemaname = current_schema() and relname = ${table}`.execute(t.database.db);
    return rows[0]?.at ?? null;
  };

  const lastVacuum = async (table: string) => {
    const { rows } = await sql<{
      at: Date | null;
    }>`select coalesce(last_vacuum, last_autovacuum) as at from pg_stat_user_tables
      where schemaname = current_schema() and relname = ${table}`.execute(t.database.db);
    return rows[0]?.at ?? null;
  };

  /** Waits (up to 10 s) until the service's upkeep has analysed and vacuumed the table; answers when it did each. */
  const upkeepOf = async (table: string) => {
    let analysed = null;
    let vacuumed = null;
    for (let i = 0; i < 100 && !(analysed && vacuumed); i++) {
      await sleep(100);
      analysed = await lastAnalyze(table);
      vacuumed = await lastVacuum(table);
    }
    return { analysed, vacuumed };
  };

  /** The plan of a query run with index scans only (EXPLAIN ANALYZE), as text. */
  const indexPlan = (query: RawBuilder<unknown>) =>
    t.database.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_bitmapscan = off`.execute(trx);
      const plan = await sql<{ 'QUERY PLAN': string }>`explain (analyze, format text) ${query}`.execute(trx);
      return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    });

  it('vacuums and analyses a table after a bulk load, and leaves a barely changed one alone', async () => {
    const autovacuum = (await sql<{ autovacuum: string }>`show autovacuum`.execute(t.database.db)).rows[0].autovacuum;
    await sql`insert into engine_items (scope, kind, id, doc, created_on, created_by)
      select 'bulk', 'task', 'id-' || g, '{}', g, 'seed' from generate_series(1, 5000) g`.execute(t.database.db);
    await sql`insert into engine_item_roles (scope, kind, role, item_seq) values ('bulk', 'task', 'r', 1)`.execute(
      t.database.db,
    );
    // Analysed at the first check that sees the rows; vacuumed once the table is quiet (a later check).
    const { analysed, vacuumed } = await upkeepOf('engine_items');
    expect(analysed, `engine_items analysed (autovacuum ${autovacuum})`).not.toBeNull();
    expect(vacuumed, 'engine_items vacuumed').not.toBeNull();
    if (autovacuum === 'off') {
      expect(await lastAnalyze('engine_item_roles')).toBeNull();
      expect(await lastVacuum('engine_item_roles')).toBeNull();
    }
    // Vacuumed: the visibility map lets an index-only scan answer without reading the table.
    const text = await indexPlan(sql`select seq from engine_items where scope = 'bulk' and kind = 'task' order by seq`);
    expect(text).toContain('Index Only Scan');
    expect(/Heap Fetches: (\d+)/.exec(text)?.[1]).toBe('0');
    const { rows } = await sql<{
      n: number;
    }>`select n_mod_since_analyze as n from pg_stat_user_tables where schemaname = current_schema() and relname = 'engine_items'`.execute(
      t.database.db,
    );
    expect(Number(rows[0].n)).toBeLessThan(500);
  });

  it('vacuums and analyses a small table too (150 rows, as the reader-set grantees of a store), so the planner knows it', async () => {
    await sql`insert into storage_value_keys (tenant_id, store_id, path)
      select 'small', 's', 'p' || g from generate_series(1, 150) g`.execute(t.database.db);
    const { analysed, vacuumed } = await upkeepOf('storage_value_keys');
    expect(analysed, 'storage_value_keys analysed').not.toBeNull();
    expect(vacuumed, 'storage_value_keys vacuumed').not.toBeNull();
    const text = await indexPlan(
      sql`select path from storage_value_keys where tenant_id = 'small' and store_id = 's' and path in ('p1', 'p2')`,
    );
    expect(text).toContain('Index Only Scan');
    expect(/Heap Fetches: (\d+)/.exec(text)?.[1]).toBe('0');
  });
});

(inject('pgUrl') ? describe : describe.skip)('statistics upkeep during a bulk load [postgres]', () => {
  let t: TestApp;
  let schema: string;
  beforeAll(async () => {
    // The service's own upkeep off: the checks below are made by hand, between writes.
    t = await startTestApp('postgres', { database: { analyzeCheckSeconds: 0 } });
    schema = (await sql<{ s: string }>`select current_schema() as s`.execute(t.database.db)).rows[0].s;
  });
  afterAll(() => t.close());

  const silent = { info: () => undefined, warn: () => undefined } as unknown as FastifyBaseLogger;
  const insert = (from: number, to: number) =>
    sql`insert into engine_items (scope, kind, id, doc, created_on, created_by)
      select 'load', 'task', 'id-' || g, '{}', g, 'seed' from generate_series(${from}::int, ${to}::int) g`.execute(
      t.database.db,
    );
  const vacuums = async () => {
    const { rows } = await sql<{
      n: number;
    }>`select vacuum_count as n from pg_stat_user_tables where schemaname = current_schema() and relname = 'engine_items'`.execute(
      t.database.db,
    );
    return Number(rows[0].n);
  };
  // Statistics reach pg_stat_user_tables when the writing session reports them (an idle session within seconds).
  const reported = async (rows: number) => {
    for (let i = 0; i < 300; i++) {
      const { rows: r } = await sql<{
        n: number;
      }>`select n_tup_ins as n from pg_stat_user_tables where schemaname = current_schema() and relname = 'engine_items'`.execute(
        t.database.db,
      );
      if (Number(r[0]?.n ?? 0) >= rows) return;
      await sleep(100);
    }
    throw new Error(`pg_stat_user_tables never showed ${rows} inserted rows`);
  };

  it('analyses a table that is still being loaded, vacuums it once it is quiet, and a busy one after the wait', async () => {
    const patient = new StatisticsUpkeep(
      t.database.db,
      schema,
      { checkIntervalMs: 0, changedShare: 0.1, minChangedRows: 500, busyVacuumWaitMs: 600_000 },
      silent,
    );
    await insert(1, 5000);
    await reported(5000);
    expect(await patient.check()).toContain('engine_items'); // analysed, not vacuumed: first seen
    expect(await vacuums()).toBe(0);
    await insert(5001, 10000);
    await reported(10000);
    expect(await patient.check()).toContain('engine_items'); // grew by a large share: analysed again; still busy
    expect(await vacuums()).toBe(0);
    await patient.check(); // quiet since the previous check: vacuumed
    expect(await vacuums()).toBe(1);

    const impatient = new StatisticsUpkeep(
      t.database.db,
      schema,
      { checkIntervalMs: 0, changedShare: 0.1, minChangedRows: 500, busyVacuumWaitMs: 0 },
      silent,
    );
    await insert(10001, 20000);
    await reported(20000);
    await impatient.check(); // busy, but has waited long enough
    expect(await vacuums()).toBe(2);
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
      insert into engine_items (scope, kind, id, doc, created_on, created_by) select 'bulk', 'task', 'id-' || v, '{}', v, 'seed' from g`.execute(
      t.database.db,
    );
    let stats = 0;
    for (let i = 0; i < 100 && stats === 0; i++) {
      await sleep(100);
      stats = Number(
        (
          await sql<{ n: number }>`select count(*) as n from sqlite_stat1 where tbl = 'engine_items'`.execute(
            t.database.db,
          )
        ).rows[0].n,
      );
    }
    expect(stats).toBeGreaterThan(0);
  });
});

// Behind PgBouncer in transaction pooling mode: the service's statements go through it, the upkeep's VACUUM with its
// SET runs on the direct URL, so the setting never lands on a pooled server connection that others then share.
const bouncer = inject('pgUrl') && pgbouncerBinary();
if (inject('pgUrl') && !bouncer) reportMissingPgBouncer('statistics upkeep behind PgBouncer');
(bouncer ? describe : describe.skip)('statistics upkeep behind PgBouncer (transaction pooling) [postgres]', () => {
  let app: App;
  let pgbouncer: PgBouncer;
  let database: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    database = await createProcessDatabase(inject('pgUrl'));
    pgbouncer = await startPgBouncer(inject('pgUrl'));
    const config = parseConfig({
      server: { logLevel: 'silent' },
      identity: { bootstrapAdminPassword: 'admin-pass-1' },
      database: {
        url: pgbouncer.through(database.url),
        directUrl: database.url,
        pooler: 'transaction',
        analyzeCheckSeconds: 0.2,
      },
    });
    app = await buildApp(config, { logger: false });
  });
  afterAll(async () => {
    await app?.close();
    await pgbouncer?.stop();
    await database?.drop();
  });

  it('analyses and vacuums a table loaded through PgBouncer, and leaves no session setting on its connections', async () => {
    const db = app.database.db;
    await sql`insert into engine_items (scope, kind, id, doc, created_on, created_by)
      select 'bulk', 'task', 'id-' || g, '{}', g, 'seed' from generate_series(1, 5000) g`.execute(db);
    let stats: { analysed: boolean; vacuumed: boolean } | undefined;
    for (let i = 0; i < 100 && !(stats?.analysed && stats.vacuumed); i++) {
      await sleep(100);
      const { rows } = await sql<{ analysed: boolean; vacuumed: boolean }>`
        select coalesce(last_analyze, last_autoanalyze) is not null as analysed,
               coalesce(last_vacuum, last_autovacuum) is not null as vacuumed
        from pg_stat_user_tables where relname = 'engine_items'`.execute(db);
      stats = rows[0];
    }
    expect(stats, `upkeep behind PgBouncer: ${pgbouncer.output().slice(-2000)}`).toEqual({
      analysed: true,
      vacuumed: true,
    });
    // Every pooled server connection (PgBouncer keeps up to 20): none got the VACUUM's cost delay.
    const delays = await Promise.all(
      Array.from({ length: 8 }, () =>
        db.transaction().execute(async (trx) => {
          const { rows } = await sql<{
            d: string;
          }>`select current_setting('vacuum_cost_delay') as d, pg_sleep(0.02)`.execute(trx);
          return rows[0].d;
        }),
      ),
    );
    expect(new Set(delays)).toEqual(new Set(['0']));
  });
});
