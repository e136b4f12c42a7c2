// The SQLite driver under Kysely: Kysely's own, but statements come from the service's statement cache, which is
// told how each runs (`runAs.arrays`: raw mode) by its compiled query, not by its text.
import type SQLite from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import type { RunAsQuery } from './data-access.js';
import { type StatementSpans, tracedDriver } from './statement-spans.js';

/** Prepared statements by text (database.ts withStatementCache); `arrays`: one in raw mode. */
export interface StatementCache {
  prepare(text: string, arrays?: boolean): SQLite.Statement;
  close(): void;
}

/** One connection, one query at a time: Kysely hands it over under this lock (as its own SQLite driver does). */
class ConnectionLock {
  private held: Promise<void> | undefined;
  private release: (() => void) | undefined;

  async lock(): Promise<void> {
    while (this.held) await this.held;
    this.held = new Promise((resolve) => (this.release = resolve));
  }

  unlock(): void {
    const release = this.release;
    this.held = undefined;
    this.release = undefined;
    release?.();
  }
}

class SqliteStatementConnection implements DatabaseConnection {
  constructor(private readonly statements: StatementCache) {}

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters, runAs } = compiled as RunAsQuery<R>;
    const stmt = this.statements.prepare(sql, runAs?.arrays === true);
    if (stmt.reader) return Promise.resolve({ rows: stmt.all(parameters as unknown[]) as R[] });
    const { changes, lastInsertRowid } = stmt.run(parameters as unknown[]);
    return Promise.resolve({
      numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
      insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
      rows: [],
    });
  }

  // biome-ignore lint/correctness/useYield: the driver interface asks for a generator; nothing streams
  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('streaming is not used by the service');
  }
}

class SqliteStatementDriver implements Driver {
  private readonly lock = new ConnectionLock();
  private readonly connection: SqliteStatementConnection;

  constructor(private readonly statements: StatementCache) {
    this.connection = new SqliteStatementConnection(statements);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.lock.lock();
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    this.lock.unlock();
  }

  async destroy(): Promise<void> {
    this.statements.close();
  }
}

/** Kysely's SQLite dialect with SqliteStatementDriver under it. */
export class SqliteStatementDialect extends SqliteDialect {
  constructor(
    private readonly statementCache: StatementCache,
    private readonly spans?: StatementSpans,
  ) {
    super({ database: statementCache as never });
  }

  override createDriver(): Driver {
    const driver = new SqliteStatementDriver(this.statementCache);
    return this.spans ? tracedDriver(driver, this.spans, 'sqlite') : driver;
  }
}
