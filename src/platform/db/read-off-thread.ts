import type { CompiledQuery, Kysely, QueryResult } from 'kysely';

/** Runs a read statement somewhere else than the main thread's connection (sqlite-reader-threads.ts). */
export type OffThreadReader = (sql: string, parameters: readonly unknown[]) => Promise<unknown[]>;

/** Where a root Kysely instance carries its off-thread reader: state of that instance, not of this module. */
const OFF_THREAD_READER = Symbol('svc.offThreadReader');

type WithOffThreadReader = Kysely<any> & { [OFF_THREAD_READER]?: OffThreadReader };

/**
 * Lets readOffThread on `db` (a root instance, never a transaction's) run its statements with `reader`; registered
 * again, the new reader replaces the old (the tests' statement recorder wraps it).
 */
export function registerOffThreadReader(db: Kysely<any>, reader: OffThreadReader): void {
  Object.defineProperty(db, OFF_THREAD_READER, { value: reader, enumerable: false, configurable: true });
}

/** The off-thread reader registered on `db`, if any. */
export const offThreadReader = (db: Kysely<any>): OffThreadReader | undefined =>
  (db as WithOffThreadReader)[OFF_THREAD_READER];

/**
 * Runs a read that may take a while (a list over a large store) where it keeps the event loop free: on a reader
 * thread of SQLite where the database has them, else as any query (PostgreSQL runs it in its own process anyway).
 * The read sees what was committed when it starts, never the rows of a transaction still open on the main thread;
 * so it is for reads outside transactions only.
 */
export async function readOffThread<R>(db: Kysely<any>, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  const reader = offThreadReader(db);
  if (!reader) return db.executeQuery(query);
  return { rows: (await reader(query.sql, query.parameters)) as R[] };
}
