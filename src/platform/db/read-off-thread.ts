import type { CompiledQuery, QueryResult } from 'kysely';
import type { DataAccess, RunAsQuery } from './data-access.js';

export type { OffThreadReader } from './data-access.js';

/**
 * Runs a read that may take a while (a list over a large store) where it keeps the event loop free: on a reader
 * thread of SQLite where the database has them (DataAccess.offThreadReader), else as any query (PostgreSQL runs it in
 * its own process anyway). The read sees what was committed when it starts, never the rows of a transaction still
 * open on the main thread; so it is for reads outside transactions only (it takes the database's handle, never a
 * transaction's Kysely).
 */
export async function readOffThread<R>(data: DataAccess, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  const reader = data.offThreadReader;
  if (!reader) return data.db.executeQuery(query);
  return { rows: (await reader(query.sql, query.parameters, (query as RunAsQuery<R>).runAs?.arrays === true)) as R[] };
}
