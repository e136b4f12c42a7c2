// The database: the embedded SQLite default or PostgreSQL, its pool and its statement cache.
import { Type } from '@sinclair/typebox';

export const DatabaseConfigSchema = Type.Object(
  {
    // Schemes other than postgres(ql):// are refused by load-config.ts with a message naming them.
    url: Type.Optional(
      Type.String({
        description:
          '`postgres://` or `postgresql://` (`postgres://user:password@host:5432/db`) selects PostgreSQL, which several instances may share; absent or empty: the embedded SQLite in `dataDir`. Any other scheme stops the start.',
      }),
    ),
    dataDir: Type.String({
      default: './data',
      description:
        'Directory of the embedded SQLite database (`svc.sqlite`, WAL mode), made if missing. One process per database: a second start exits with code 3.',
    }),
    poolSize: Type.Integer({
      minimum: 1,
      maximum: 200,
      default: 10,
      description: "PostgreSQL: connections in each instance's pool.",
    }),
    sqliteCacheMiB: Type.Integer({
      minimum: 2,
      maximum: 65536,
      default: 64,
      description:
        "SQLite's page cache in MiB (one connection). Lists over large stores re-read the pages of every readable item: with more items than fit, they come from the OS cache instead (docs/benchmarks.md).",
    }),
    sqliteReaderThreads: Type.Integer({
      minimum: -1,
      maximum: 64,
      default: 2,
      description:
        "SQLite: threads that run the lists' statements on read-only connections of their own, so a long list never stops the event loop and the main thread answers HTTP meanwhile; 0 runs them on the main thread, -1 one thread per core but one. Each has its own page cache of `sqliteCacheMiB`. Two on a machine of 2 cores answered 45% more lists than none, one 27% (docs/benchmarks.md).",
    }),
    sqliteWriterThread: Type.Boolean({
      default: true,
      description:
        "SQLite: a thread that writes the storage module's batches of creates on a connection of its own, so that their statements and commits (and the WAL checkpoints those trigger, up to ~100 ms) never stop the event loop; false writes them on the main thread. It has its own page cache of `sqliteCacheMiB`.",
    }),
    pooler: Type.Union([Type.Literal('none'), Type.Literal('transaction')], {
      default: 'none',
      description:
        "PostgreSQL: `transaction` when `url` goes through a pooler in transaction pooling mode (PgBouncer `pool_mode = transaction`): the service then prepares no named statements on the server (unless `poolerPreparedStatements`), sends no session settings at connect (set `jit = off` and `max_parallel_workers_per_gather = 0` on the database or role instead), and opens what needs a session (the change feed's LISTEN, migrations and their advisory lock, the statistics upkeep's VACUUM) on `directUrl` (docs/operations.md, PgBouncer).",
    }),
    poolerPreparedStatements: Type.Boolean({
      default: false,
      description:
        'PostgreSQL with `pooler: transaction`: keep running the hot statements as named prepared statements, for a pooler that tracks them (PgBouncer 1.21 or later with `max_prepared_statements` of at least `preparedStatementsPerConnection`); PgBouncer before 1.21 would answer them on server connections that never prepared them.',
    }),
    preparedStatementsPerConnection: Type.Integer({
      minimum: 0,
      maximum: 100_000,
      default: 500,
      description:
        "PostgreSQL: named prepared statements each pool connection keeps (parsed once, and planned once where PostgreSQL's generic plan serves); past it the least recently used one is closed on the server (the protocol's Close, DEALLOCATE's equivalent, which PgBouncer 1.21 and later intercept) before a new one is prepared. Each costs server memory for its parse tree and plan, per connection. 0 prepares nothing by name.",
    }),
    directUrl: Type.Optional(
      Type.String({
        pattern: '^postgres(ql)?://',
        description:
          "PostgreSQL: a URL to the same database that bypasses the pooler, for what needs a session of its own: the change feed's LISTEN, migrations (their advisory lock) and the statistics upkeep's VACUUM. Used only with `pooler: transaction`; without it the service starts and logs what will not work.",
      }),
    ),
    analyzeCheckSeconds: Type.Number({
      minimum: 0,
      maximum: 86400,
      default: 2,
      description:
        'PostgreSQL: how often the service looks for its tables whose statistics went stale (a tenth of their rows, at least 50, changed since the last ANALYZE) and analyses them, or vacuums and analyses those that gained or lost that share since the last VACUUM, off the request path; 0 turns it off.',
    }),
  },
  {
    default: {},
    additionalProperties: false,
    description: 'Where the data lives: the embedded SQLite (the default) or PostgreSQL.',
  },
);
