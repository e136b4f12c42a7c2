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
 * (manual or automatic), and those are analysed one at a time. Not used on SQLite (not covered here).
 */
export class StatisticsUpkeep {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly db: Kysely<any>,
    private readonly schema: string,
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
}
