// SQLite's statistics upkeep and the reader threads: a connection loads the planner's statistics with the schema, and
// an ANALYZE on another connection does not make it read them again, so the reader threads (which run the lists) would
// plan with the statistics of the moment they opened, e.g. those of a store's first few hundred items.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { readOffThread } from '../../src/platform/db/read-off-thread.js';
import type { Database } from '../../src/platform/db/database.js';
import { StatisticsUpkeep } from '../../src/platform/db/statistics-upkeep.js';
import { openTestDatabase } from '../helpers/test-app.js';

const quiet = { info() {}, warn() {} } as unknown as FastifyBaseLogger;
const settings = { checkIntervalMs: 0, changedShare: 0.1, minChangedRows: 50, busyVacuumWaitMs: 0 };

describe('SQLite statistics upkeep [sqlite]', () => {
  let database: Database;
  beforeEach(async () => {
    database = await openTestDatabase('sqlite');
    await sql`CREATE TABLE t (x INTEGER, y INTEGER)`.execute(database.db);
    await sql`CREATE INDEX t_x ON t (x)`.execute(database.db);
    await sql`CREATE INDEX t_y ON t (y)`.execute(database.db);
  });
  afterEach(() => database?.destroy());

  /** The index a reader thread's plan takes for an equality on both columns. */
  const readerPlan = async () => {
    const plan = sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT * FROM t WHERE x = 1 AND y = 1`;
    const { rows } = await readOffThread(database.data, plan.compile(database.db));
    return rows.map((r) => r.detail).join('; ');
  };
  /** `n` rows: `x` unique and `y` one value, or the other way round. */
  const fill = (n: number, unique: 'x' | 'y') =>
    sql`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${n})
      INSERT INTO t (x, y) SELECT ${unique === 'x' ? sql`i, 1` : sql`1, i`} FROM c`.execute(database.db);

  it('has the reader threads plan with the statistics it took after they opened', async () => {
    const upkeep = new StatisticsUpkeep(
      database.db,
      undefined,
      settings,
      quiet,
      database.db,
      database.statisticsChanged,
    );
    await fill(2000, 'x');
    await upkeep.check();
    expect(await readerPlan()).toContain('INDEX t_x');
    // The store grows 25-fold with the other column selective: PRAGMA optimize analyses the table again.
    await sql`DELETE FROM t`.execute(database.db);
    await fill(50_000, 'y');
    await upkeep.check();
    expect(await readerPlan()).toContain('INDEX t_y');
  });
});
