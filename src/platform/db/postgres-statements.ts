// The PostgreSQL driver under Kysely: Kysely's own, but each statement is issued with a pg QueryConfig built from what
// its compiled query asks for (`runAs`, set by prepareQuery, preparedOnServer and rowsAsArrays), not from its text.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { CompiledQuery, PostgresDialect, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import type { RunAsQuery } from './data-access.js';
import { type StatementCounts, StatementLru } from './statement-lru.js';
import { type StatementSpans, tracedDriver } from './statement-spans.js';

/** Named prepared statements one PostgreSQL connection keeps by default (each holds its parse tree and plans). */
export const PREPARED_PER_CONNECTION = 500;
/** Statement names remembered by text, for all connections (past it, a name is hashed again at each run). */
const MAX_NAMES = 10_000;

/**
 * Statements with `runAs.prepared` run as named prepared statements: PostgreSQL parses them once per connection
 * instead of on every call, and after five runs plans them once where its generic plan costs no more than the plans
 * for the values (storage lists on PostgreSQL: 1.4 ms of planning for 1.5 ms of execution). Each connection keeps at
 * most `preparedPerConnection` of them (a list's text follows the shape of its filter, which callers choose), the
 * least recently used closed on the server when a new one needs the place (StatementLru). Statements with
 * `runAs.arrays` answer their rows as arrays (rowMode 'array').
 */
export class PostgresStatementDriver implements Driver {
  private readonly names = new Map<string, string>();
  private readonly connections = new WeakMap<pg.PoolClient, PostgresStatementConnection>();
  private ended = false;
  /** Hits, misses and evictions of the connections' statement caches, summed (metrics). */
  readonly counts: StatementCounts;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: StatementOptions = {},
  ) {
    this.counts = options.counts ?? { hits: 0, misses: 0, evictions: 0 };
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.pool.connect();
    if (this.ended) {
      client.release();
      throw new Error('driver has already been destroyed');
    }
    let connection = this.connections.get(client);
    if (!connection) {
      const named = this.options.named !== false && this.options.preparedPerConnection !== 0;
      connection = new PostgresStatementConnection(
        client,
        named ? this.names : undefined,
        named
          ? new StatementLru(this.options.preparedPerConnection ?? PREPARED_PER_CONNECTION, this.counts)
          : undefined,
      );
      this.connections.set(client, connection);
    }
    return connection;
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

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PostgresStatementConnection).client.release();
  }

  async destroy(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.pool.end();
  }
}

class PostgresStatementConnection implements DatabaseConnection {
  constructor(
    readonly client: pg.PoolClient,
    /** Statement names by text; undefined: nothing is prepared by name (a transaction pooler in between). */
    private readonly names: Map<string, string> | undefined,
    /** The statements prepared on this connection, by name, in order of use. */
    private readonly statements: StatementLru | undefined,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const { config, evicted } = this.config(compiled as RunAsQuery<unknown>);
    let result: pg.QueryResult<any>;
    try {
      result = evicted === undefined ? await this.client.query<any>(config) : await this.closingFirst(config, evicted);
    } catch (error) {
      // A statement whose Parse failed is not on the server: its place is free again (pg forgets it too).
      if (config.name && !(config.name in parsedStatements(this.client))) this.statements?.forget(config.name);
      throw error;
    }
    const { command, rowCount, rows } = result;
    const changed = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
    return { numAffectedRows: changed ? BigInt(rowCount ?? 0) : undefined, rows: rows ?? [] };
  }

  /**
   * Runs `config` after closing the prepared statement `evicted` (the protocol's Close message, DEALLOCATE's
   * equivalent), written in front of the query's own messages: no round trip of its own. PostgreSQL answers the Close
   * with CloseComplete, which pg ignores; closing a name the server does not hold is no error. Close, not a
   * `DEALLOCATE` statement, because a pooler that keeps prepared statements for its clients (PgBouncer 1.21 and
   * later) renames them on the server and intercepts Close, while a `DEALLOCATE name` would reach the server and fail
   * there (pgbouncer/pgbouncer#991).
   */
  private closingFirst(config: pg.QueryConfig, evicted: string): Promise<pg.QueryResult<any>> {
    return new Promise((resolve, reject) => {
      const query = new pg.Query(config, (error, result) =>
        error ? reject(error) : resolve(result as unknown as pg.QueryResult<any>),
      );
      const submit = query.submit.bind(query);
      query.submit = (connection) => {
        const protocol = connection as unknown as PgProtocol;
        protocol.stream.cork?.();
        try {
          protocol.close({ type: 'S', name: evicted });
          delete protocol.parsedStatements[evicted];
          delete protocol.submittedNamedStatements?.[evicted];
          return submit(connection);
        } finally {
          protocol.stream.uncork?.();
        }
      };
      this.client.query(query);
    });
  }

  // biome-ignore lint/correctness/useYield: the driver interface asks for a generator; nothing streams
  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('streaming is not used by the service');
  }

  private config({ sql, parameters, runAs }: RunAsQuery<unknown>): { config: pg.QueryConfig; evicted?: string } {
    const config: pg.QueryConfig = { text: sql, values: [...parameters] };
    if (runAs?.arrays) (config as pg.QueryArrayConfig).rowMode = 'array';
    if (!runAs?.prepared || !this.names || !this.statements) return { config };
    let name = this.names.get(sql);
    if (!name) {
      name = `svc_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
      if (this.names.size < MAX_NAMES) this.names.set(sql, name);
    }
    config.name = name;
    return { config, evicted: this.statements.use(name).evicted };
  }
}

/** What of pg's connection the eviction uses (pg's types do not declare its bookkeeping of prepared statements). */
interface PgProtocol {
  readonly stream: { cork?: () => void; uncork?: () => void };
  close(message: { type: 'S'; name: string }): void;
  /** Names of the statements pg knows are prepared on the server (it sends no Parse for them): text by name. */
  parsedStatements: Record<string, string>;
  submittedNamedStatements?: Record<string, string>;
}

const parsedStatements = (client: pg.PoolClient): Record<string, string> =>
  (client as unknown as { connection: PgProtocol }).connection.parsedStatements;

export interface StatementOptions {
  /**
   * False: `runAs.prepared` statements run unnamed (parsed at each run), for connections behind a transaction pooler,
   * where a named statement prepared in one transaction may be missing on the server connection of the next
   * (PgBouncer before 1.21, or without `max_prepared_statements`). Default true.
   */
  named?: boolean;
  /** Named statements a connection keeps at most (PREPARED_PER_CONNECTION); 0: none, as `named: false`. */
  preparedPerConnection?: number;
  /** Where the connections count their hits, misses and evictions (else the driver's own `counts`). */
  counts?: StatementCounts;
}

/** Kysely's PostgreSQL dialect with PostgresStatementDriver under it. */
export class PostgresStatementDialect extends PostgresDialect {
  constructor(
    private readonly statementPool: pg.Pool,
    private readonly statementOptions: StatementOptions = {},
    private readonly spans?: StatementSpans,
  ) {
    super({ pool: statementPool });
  }

  override createDriver(): Driver {
    const driver = new PostgresStatementDriver(this.statementPool, this.statementOptions);
    return this.spans ? tracedDriver(driver, this.spans, 'postgresql') : driver;
  }
}
