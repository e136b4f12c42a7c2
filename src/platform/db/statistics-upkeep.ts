import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';

export interface UpkeepSettings {
  /** How often the tables' change counters are looked at (0: never). */
  checkIntervalMs: number;
  /** A table is analysed once this share of its rows changed since its last ANALYZE... */
  changedShare: number;
  /** ...and at least this many rows. */
  minChangedRows: number;
  /** A table that needs a vacuum but is still being written is vacuumed anyway once it has waited this long. */
  busyVacuumWaitMs: number;
}

/**
 * Keeps the planner's statistics of the service's own tables fresh on PostgreSQL, where deployments may run without
 * autovacuum (or with it lagging after a bulk load): plans made from empty or stale statistics can turn an index lookup
 * into a walk over a whole table. Off the request path, on a timer: the counters of `pg_stat_user_tables` (kept with
 * `track_counts`, on by default) name the tables of this schema that changed by a large share since their last ANALYZE
 * (manual or automatic), and those are analysed one at a time; those that gained or lost a large share of rows since
 * their last VACUUM are vacuumed first (what autovacuum would do), so that index-only scans need not read the table.
 * On SQLite the engine's own `PRAGMA optimize` decides.
 */
export class StatisticsUpkeep {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  /** Per table: its unvacuumed-row counter at the previous check, and since when a vacuum it needs has waited. */
  private readonly seen = new Map<string, { unvacuumed: number; waitingSince?: number }>();

  constructor(
    private readonly db: Kysely<any>,
    /** The PostgreSQL schema of the service's tables; undefined on SQLite. */
    private readonly schema: string | undefined,
    private readonly settings: UpkeepSettings,
    private readonly log: FastifyBaseLogger,
    /**
     * Where a VACUUM runs with its SET on one session: `db`, or a direct connection behind a transaction pooler;
     * undefined behind one without a direct URL, where the VACUUM runs without its cost delay.
     */
    private readonly sessionDb: Kysely<any> | undefined = db,
    /**
     * SQLite: told when an ANALYZE changed the statistics, which other connections (the reader threads') would not see
     * (Database.statisticsChanged).
     */
    private readonly statisticsChanged?: () => void,
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

  /**
   * Analyses every table of the schema that changed enough since its statistics were taken, and vacuums (then analyses)
   * every one that gained or lost enough rows since its last vacuum; answers their names.
   */
  async check(): Promise<string[]> {
    if (this.schema === undefined) return this.checkSqlite();
    const { rows } = await sql<{
      relname: string;
      changed: number;
      live: number;
      analysed: boolean;
      unvacuumed: number;
    }>`
      select relname, n_mod_since_analyze as changed, n_live_tup as live,
             (last_analyze is not null or last_autoanalyze is not null) as analysed,
             n_ins_since_vacuum + n_dead_tup as unvacuumed
      from pg_stat_user_tables where schemaname = ${this.schema}`.execute(this.db);
    const { changedShare, minChangedRows } = this.settings;
    const large = (n: number, live: number) => n >= minChangedRows && n >= changedShare * Math.max(live - n, 0);
    const done: string[] = [];
    const now = Date.now();
    for (const r of rows) {
      if (!/^[a-z_][a-z0-9_]*$/.test(r.relname)) continue;
      const table = sql.id(this.schema, r.relname);
      const live = Number(r.live);
      const unvacuumed = Number(r.unvacuumed);
      const before = this.seen.get(r.relname);
      // Rows written since the last vacuum are not marked all-visible yet: every index-only scan over them reads the
      // table too (a filter matching 25,000 index rows paid 25,000 heap reads), and deleted rows stay in the way. A
      // vacuum waits until the table is quiet (no rows written since the previous check), or has waited 30 s: during a
      // bulk load it would run again and again and slow the load, while an ANALYZE (next) keeps the plans right.
      const needsVacuum = large(unvacuumed, live);
      const waitingSince = needsVacuum ? (before?.waitingSince ?? now) : undefined;
      this.seen.set(r.relname, { unvacuumed, waitingSince });
      const quiet = before !== undefined && before.unvacuumed === unvacuumed;
      if (needsVacuum && (quiet || now - waitingSince! >= this.settings.busyVacuumWaitMs)) {
        await this.vacuum(table);
        this.seen.delete(r.relname);
      }
      // Never analysed: its statistics are the planner's guesses; otherwise a share of what was there.
      else if (Number(r.changed) >= minChangedRows && (!r.analysed || large(Number(r.changed), live)))
        await sql`analyze ${table}`.execute(this.db);
      else continue;
      done.push(r.relname);
    }
    if (done.length) this.log.info({ tables: done }, 'statistics upkeep: vacuumed or analysed');
    return done;
  }

  /**
   * VACUUM (ANALYZE) at autovacuum's pace (cost delay 2 ms per 200 cost units), so that it does not take the machine
   * from the requests while it reads a large table; on one connection, where the setting is made and reset.
   */
  private async vacuum(table: RawBuilder<unknown>): Promise<void> {
    if (!this.sessionDb) {
      await sql`vacuum (analyze) ${table}`.execute(this.db);
      return;
    }
    await this.sessionDb.connection().execute(async (conn) => {
      await sql`set vacuum_cost_delay = 2`.execute(conn);
      try {
        await sql`vacuum (analyze) ${table}`.execute(conn);
      } finally {
        await sql`reset vacuum_cost_delay`.execute(conn);
      }
    });
  }

  /**
   * SQLite: `PRAGMA optimize` with "check every table" (0x10000) analyses the tables that have no statistics yet or whose
   * size changed by a large factor since (bounded by analysis_limit: an estimate from the first rows of each index).
   * Without statistics SQLite's planner takes every index equality for selective: a page of 100 items by key was read
   * by walking the store's (tenant, store) index range instead (1.7 ms -> 0.14 ms measured at 10,000 items).
   * The statistics reach the other connections only when they read the schema again, which an ANALYZE does not make
   * them do: asked first what it would do (0x01), the upkeep tells them (statisticsChanged) when it analysed a table.
   */
  private async checkSqlite(): Promise<string[]> {
    await sql`PRAGMA analysis_limit = 1000`.execute(this.db);
    const planned = await sql<Record<string, unknown>>`PRAGMA optimize = 0x10003`.execute(this.db);
    if (planned.rows.length === 0) return [];
    await sql`PRAGMA optimize = 0x10002`.execute(this.db);
    this.statisticsChanged?.();
    return planned.rows.map((r) => String(Object.values(r)[0]));
  }
}
