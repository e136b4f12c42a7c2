import type SQLite from 'better-sqlite3';
import { batchPerTurn, type TurnBatchEntry } from '../async/turn-batch.js';
import type { DirectReader } from './data-access.js';

interface Read {
  stmt: SQLite.Statement;
  parameters: readonly unknown[];
}

/**
 * Prepared reads on SQLite's one connection, batched per turn of the event loop. A read waits until the poll
 * phase has handed every ready request to its handler (`setImmediate`), then all reads of that turn run
 * together in one read transaction, without Kysely's connection hand-over.
 *
 * Why: they arrived concurrently, so one snapshot for all is as correct as one each; together they take the
 * WAL read lock once, run while the statement and its b-tree pages are hot in the CPU caches, and their
 * responses leave the process in one burst instead of waking the client once per response (measured in
 * docs/benchmarks/storage.md: item read 30% -> 74% of a bare route).
 *
 * A statement that already serves a batch of callers (`RunOptions.batched`) runs at once.
 *
 * While a transaction holds the connection (a write between two of its awaits), the batch answers undefined
 * and each read goes through Kysely, which waits for that transaction: a read must never see rows it has not
 * committed yet.
 */
export function sqliteReadBatcher(sqlite: SQLite.Database, prepare: (text: string) => SQLite.Statement): DirectReader {
  let begin: SQLite.Statement | undefined;
  let commit: SQLite.Statement | undefined;
  let rollback: SQLite.Statement | undefined;

  const runAll = (batch: TurnBatchEntry<Read, unknown[] | undefined>[]) => {
    for (const read of batch) {
      try {
        read.resolve(read.input.stmt.all(read.input.parameters as unknown[]));
      } catch (error) {
        read.reject(error);
      }
    }
  };

  const read = batchPerTurn<Read, unknown[] | undefined>((batch) => {
    if (!sqlite.open || sqlite.inTransaction) {
      for (const r of batch) r.resolve(undefined);
      return;
    }
    if (batch.length === 1) return runAll(batch);
    try {
      (begin ??= sqlite.prepare('BEGIN')).run();
    } catch {
      return runAll(batch); // each in its own implicit transaction, as without batching
    }
    runAll(batch);
    try {
      (commit ??= sqlite.prepare('COMMIT')).run();
    } catch {
      // Ending a transaction that only read cannot lose anything; it must just not stay open.
      try {
        if (sqlite.inTransaction) (rollback ??= sqlite.prepare('ROLLBACK')).run();
      } catch {
        // Nothing left to do here; the next batch sees the open transaction and defers to Kysely.
      }
    }
  });

  return (text, parameters, { batched }) => {
    if (!sqlite.open) return undefined;
    const stmt = prepare(text);
    if (!stmt.reader) return undefined;
    if (batched && !sqlite.inTransaction) return stmt.all(parameters as unknown[]);
    return read({ stmt, parameters });
  };
}
