// Where statements meet tracing: an interface of our own (no OpenTelemetry type), so that the database layer imports
// nothing of OpenTelemetry and runs exactly as before when tracing is off (no observer: nothing is wrapped).
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from 'kysely';

/** The engine, as OpenTelemetry's `db.system.name` spells it. */
export type TracedEngine = 'postgresql' | 'sqlite';

/** Runs a statement inside a span of its own (platform/tracing): synchronous runs stay synchronous. */
export interface StatementSpans {
  run<T>(engine: TracedEngine, sql: string, run: () => T): T;
}

/** A driver whose connections run every statement in a span; begin, commit and rollback are statements too. */
export function tracedDriver(driver: Driver, spans: StatementSpans, engine: TracedEngine): Driver {
  const inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const unwrap = (c: DatabaseConnection) => inner.get(c) ?? c;
  return {
    init: () => driver.init(),
    async acquireConnection() {
      const connection = await driver.acquireConnection();
      const traced: DatabaseConnection = {
        executeQuery: <R>(compiled: CompiledQuery): Promise<QueryResult<R>> =>
          spans.run(engine, compiled.sql, () => connection.executeQuery<R>(compiled)),
        streamQuery: (compiled, chunkSize) => connection.streamQuery(compiled, chunkSize),
      };
      inner.set(traced, connection);
      return traced;
    },
    beginTransaction: (c, settings: TransactionSettings) =>
      spans.run(engine, 'begin', () => driver.beginTransaction(unwrap(c), settings)),
    commitTransaction: (c) => spans.run(engine, 'commit', () => driver.commitTransaction(unwrap(c))),
    rollbackTransaction: (c) => spans.run(engine, 'rollback', () => driver.rollbackTransaction(unwrap(c))),
    releaseConnection: (c) => driver.releaseConnection(unwrap(c)),
    destroy: () => driver.destroy(),
  };
}
