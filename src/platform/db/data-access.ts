import { Kysely, type CompiledQuery } from 'kysely';

/**
 * How a statement runs besides its text and values, carried on its compiled query (Kysely hands that object to the
 * driver unchanged). `prepared`: its text recurs with new values, prepare it on the server (PostgreSQL: a named
 * statement, postgres-statements.ts; SQLite keeps every statement by text anyway). `arrays`: its rows as arrays of
 * its columns' values in select order, not objects (set with rowsAsArrays, prepared-query.ts).
 */
export interface RunAs {
  readonly prepared?: boolean;
  readonly arrays?: boolean;
}

/** A compiled query with how it runs. */
export type RunAsQuery<R> = CompiledQuery<R> & { readonly runAs?: RunAs };

/**
 * Runs a reading statement without Kysely's connection hand-over (now, or batched with others), or answers
 * undefined, at once or as the promise's value, when it cannot (not a reading statement, or the connection is
 * inside a transaction): the caller then goes through Kysely.
 */
export type DirectReader = (
  sql: string,
  parameters: readonly unknown[],
  options: RunOptions,
) => Promise<unknown[] | undefined> | unknown[] | undefined;

export interface RunOptions {
  /**
   * The statement already answers a batch of callers (collected per turn of the event loop): run it without
   * waiting for the other reads of the turn, which would only add a turn of latency.
   */
  batched?: boolean;
}

/**
 * Runs a read statement somewhere else than the main thread's connection (sqlite-reader-threads.ts); `arrays`: its
 * rows as arrays (runAs.arrays).
 */
export type OffThreadReader = (sql: string, parameters: readonly unknown[], arrays: boolean) => Promise<unknown[]>;

/** One statement of a write: its SQL text and its parameters. */
export interface ThreadWrite {
  sql: string;
  parameters: readonly unknown[];
  /**
   * Places of parameters that hold an offset from the transaction's key base (SqliteWriterThread.run `keyBase`): the
   * thread adds the base to each before the statement runs.
   */
  keyed?: readonly number[];
}

/**
 * Runs a write transaction somewhere else than the main thread's connection (sqlite-writer-thread.ts); answers the
 * first value of the first row of each statement that answers rows (RETURNING), in order.
 */
export type OffThreadWriter = (writes: readonly ThreadWrite[], keyBase?: string) => Promise<unknown[]>;

/**
 * A module's way to its tables, built once by createDatabase (database.ts) and handed to modules in their deps: the
 * Kysely instance, and what the database can do besides, each present only where this database has it. The
 * functions that use them take this handle (prepareQuery, PreparedQueries.run, readOffThread, writeOffThread) and
 * fall back to plain Kysely where an ability is absent.
 */
export interface DataAccess<Tables = any> {
  readonly db: Kysely<Tables>;
  /**
   * SQLite: prepared reads skip Kysely's connection hand-over and run batched per turn of the event loop
   * (sqlite-read-batch.ts). Its single synchronous connection answers reads between two awaits, when no other query
   * is half-run on it, so only an open transaction has to be waited for.
   */
  readonly directReader?: DirectReader;
  /**
   * SQLite on a file with reader threads: where readOffThread runs its reads. Replaceable (the tests' statement
   * recorder wraps it); modules read it at each call.
   */
  offThreadReader?: OffThreadReader;
  /** SQLite on a file with the writer thread: where writeOffThread runs its transactions. */
  readonly offThreadWriter?: OffThreadWriter;
}

/**
 * What a statement runs on: the database's handle (its abilities apply), or a Kysely instance (a transaction's, the
 * tests' own), where everything goes through Kysely.
 */
export type QueryTarget<Tables = any> = DataAccess<Tables> | Kysely<Tables>;

/** The handle of a target: a Kysely instance has no abilities beyond Kysely. */
export const accessOf = <Tables>(target: QueryTarget<Tables>): DataAccess<Tables> =>
  target instanceof Kysely ? { db: target } : target;

/**
 * Where a statement of a repository that may run inside a transaction goes: the handle where `db` is the handle's own
 * Kysely (its abilities apply), else `db` itself (a transaction's, where everything goes through Kysely).
 */
export const targetOf = <Tables>(data: DataAccess<Tables>, db: Kysely<Tables>): QueryTarget<Tables> =>
  db === data.db ? data : db;
