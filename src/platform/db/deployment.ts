/**
 * How the service is deployed on its database, as far as modules choose strategies by it (caching, write
 * grouping). Not SQL: those differences are the Dialect's.
 */
export interface DeploymentTraits {
  /**
   * True when one service process owns the database (the embedded SQLite file), so a per-process cache of
   * shared state stays exact; false when several instances may share it (PostgreSQL).
   */
  readonly singleInstance: boolean;
  /** One writer at a time (SQLite): concurrent writes do better grouped into one commit than queued. */
  readonly singleWriter: boolean;
}
