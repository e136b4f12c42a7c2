import {
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import type { ThreadWrite } from './sqlite-writer-thread.js';
import type { DataAccess } from './data-access.js';

export type { OffThreadWriter } from './data-access.js';

/** Whether the database has an off-thread writer (SQLite on a file; not PostgreSQL, nor with database.sqliteWriterThread off). */
export const hasOffThreadWriter = (data: DataAccess): boolean => data.offThreadWriter !== undefined;

/**
 * The statements `job` writes through `record`, an instance with SQLite's SQL that only collects them: none runs, and
 * each answers no rows, so the job must know everything it writes beforehand (new keys go in as markers that the
 * caller turns into offsets from writeOffThread's `keyBase`, marked in each write's `keyed`).
 */
export async function recordWrites(job: (record: Kysely<any>) => Promise<void>): Promise<ThreadWrite[]> {
  const writes: ThreadWrite[] = [];
  await job(recorder(writes));
  return writes;
}

/**
 * Runs the statements in one transaction on the writer thread and resolves after its commit (rejects, nothing written,
 * on an error) with what its statements that answer rows answered: the first value of the first row of each (an
 * `insert ... returning`), in order; the recorded statements answered none. The main connection is held until the
 * commit: no other transaction of the main thread runs meanwhile, so the thread never waits for the write lock.
 * `keyBase`: a query answering one number, read by the thread inside the transaction and added to the writes' `keyed`
 * parameters (new keys after the largest so far, say; no other write can take them before the commit).
 */
export async function writeOffThread(
  data: DataAccess,
  writes: readonly ThreadWrite[],
  keyBase?: string,
): Promise<unknown[]> {
  const writer = data.offThreadWriter;
  if (!writer) throw new Error('writeOffThread: the database has no writer thread');
  return data.db.connection().execute(() => writer(writes, keyBase));
}

/** A Kysely instance with SQLite's SQL whose statements are collected into `writes` instead of run. */
function recorder(writes: ThreadWrite[]): Kysely<any> {
  const connection: DatabaseConnection = {
    async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
      writes.push({ sql: compiled.sql, parameters: compiled.parameters });
      return { rows: [] };
    },
    streamQuery() {
      throw new Error('writeOffThread: statements are recorded, not streamed');
    },
  };
  const driver: Driver = {
    init: async () => undefined,
    acquireConnection: async () => connection,
    beginTransaction: async () => undefined,
    commitTransaction: async () => undefined,
    rollbackTransaction: async () => undefined,
    releaseConnection: async () => undefined,
    destroy: async () => undefined,
  };
  return new Kysely<any>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
}
