import { sql, type Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';

export interface UpkeepSettings {
  /** How often the tables' change counters are looked at (0: never). */
  checkIntervalMs: number;
  /** A table is analysed once this share of its rows changed since its last ANALYZE... */
  changedShare: number;
  /** ...and at least this many rows. */
  minChangedRows: number;
}

/**
 * Keeps the planner's statistics of the service's own tables fresh on PostgreSQL, where deployments may run without
 * autovacuum (or with it lagging after a bulk load): plans made from empty or stale statistics can turn an index lookup
 * into a walk over a whole table. Off the request path, on a timer: the counters of `pg_stat_user_tables` (kept with
 * `track_counts`, on by default) name the tables of this schema that changed by a large share since their last ANALYZE
 * (manual or automatic), and those are analysed one at a time. On SQLite the engine's own `PRAGMA optimize` decides.
 */
export class StatisticsUpkeep {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly db: Kysely<any>,
    /** The PostgreSQL schema of the service's tables; undefined on SQLite. */
    private readonly schema: string | undefined,
    private readonly settings: UpkeepSettings,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    if (this.settings.checkIntervalMs <= 0) return;
    const tick = () => {
      this.running ??= this.check()
        .then(() => undefined)
        .catch((err) => this.log.warn({ err }, 'statistics upkeep failed'))
        .finally(() => (this.running = undefined));
    };
    tick();
    this.timer = setInterval(tick, this.settings.checkIntervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Analyses every table of the schema that changed enough since its statistics were taken; answers their names. */
  async check(): Promise<string[]> {
    if (this.schema === undefined) return this.checkSqlite();
    const { rows } = await sql<{ relname: string; changed: number; live: number; analysed: boolean }>`
      select relname, n_mod_since_analyze as changed, n_live_tup as live,
             (last_analyze is not null or last_autoanalyze is not null) as analysed
      from pg_stat_user_tables where schemaname = ${this.schema}`.execute(this.db);
    const due = rows.filter((r) => {
      const changed = Number(r.changed);
      if (changed < this.settings.minChangedRows) return false;
      // Never analysed: its statistics are the planner's guesses; otherwise a share of what was there.
      return !r.analysed || changed >= this.settings.changedShare * Math.max(Number(r.live) - changed, 0);
    });
    for (const r of due) {
      if (!/^[a-z_][a-z0-9_]*$/.test(r.relname)) continue;
      await sql`analyze ${sql.id(this.schema, r.relname)}`.execute(this.db);
    }
    if (due.length) this.log.info({ tables: due.map((r) => r.relname) }, 'statistics upkeep: analysed');
    return due.map((r) => r.relname);
  }

  /**
   * SQLite: `PRAGMA optimize` with "check every table" (0x10000) analyses the tables that have no statistics yet or whose
   * size changed by a large factor since (bounded by analysis_limit: an estimate from the first rows of each index).
   * Without statistics SQLite's planner takes every index equality for selective: a page of 100 items by key was read
   * by walking the store's (tenant, store) index range instead (1.7 ms -> 0.14 ms measured at 10,000 items).
   */
  private async checkSqlite(): Promise<string[]> {
    await sql`PRAGMA analysis_limit = 1000`.execute(this.db);
    await sql`PRAGMA optimize = 0x10002`.execute(this.db);
    return [];
  }
}
