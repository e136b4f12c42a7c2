import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely } from 'kysely';
import type { Dialect } from './dialects/dialect.js';
import type { DeploymentTraits } from './deployment.js';
import { sqliteDialect } from './dialects/sqlite.js';
import { postgresDialect } from './dialects/postgres.js';
import type { DataAccess, DirectReader } from './data-access.js';
import { PostgresStatementDialect } from './postgres-statements.js';
import { SqliteStatementDialect, type StatementCache } from './sqlite-statements.js';
import { sqliteReadBatcher } from './sqlite-read-batch.js';
import { SqliteReaderThreads } from './sqlite-reader-threads.js';
import { SqliteWriterThread } from './sqlite-writer-thread.js';
import { lockDatabaseFile } from './sqlite-process-lock.js';
import type { StatementSpans } from './statement-spans.js';
import type { StatementCounts } from './statement-lru.js';

export { DatabaseInUseError } from './sqlite-process-lock.js';

export interface DatabaseOptions {
  /** postgres://... selects PostgreSQL; otherwise SQLite in dataDir (or sqliteFile). */
  url?: string;
  dataDir: string;
  sqliteFile?: string;
  poolSize?: number;
  /** SQLite's page cache in MiB (default 64), of each connection. */
  sqliteCacheMiB?: number;
  /**
   * SQLite: threads that run the long reads (readOffThread: lists) on connections of their own; 0 runs them on the
   * main connection, less than 0 one per core but one. Default 2.
   */
  sqliteReaderThreads?: number;
  /**
   * SQLite: a thread that runs the write transactions modules hand over whole (writeOffThread: the storage module's
   * batches of creates) on a connection of its own. Default true; false writes them on the main connection.
   */
  sqliteWriterThread?: boolean;
  /** PostgreSQL schema to use (tests isolate themselves this way). */
  pgSchema?: string;
  /**
   * PostgreSQL: `transaction` when `url` goes through a pooler in transaction pooling mode (PgBouncer): no named
   * prepared statements, no session settings at connect, and what needs a session goes to `directUrl`.
   */
  pooler?: 'none' | 'transaction';
  /** PostgreSQL behind a pooler: the same database without it, for what needs a session (LISTEN, migrations). */
  directUrl?: string;
  /** PostgreSQL behind a transaction pooler that tracks named prepared statements (PgBouncer >= 1.21): keep them. */
  poolerPreparedStatements?: boolean;
  /**
   * PostgreSQL: named prepared statements a pool connection keeps, the least recently used closed past it (default
   * PREPARED_PER_CONNECTION, 500; 0 none).
   */
  preparedStatementsPerConnection?: number;
  /**
   * Where errors that reach no caller go: a pooled PostgreSQL connection that fails while idle (its server restarted,
   * a connection killed). The pool drops that connection and opens a new one when needed; the operator should still
   * see why. The service passes its logger; tests may pass a no-op.
   */
  logError: DatabaseErrorLog;
  /** Tracing on (platform/tracing): every statement runs in a span. Absent: nothing is wrapped. */
  spans?: StatementSpans;
}

/** Logs an error of the database that no caller receives; `what` says where it happened. */
export type DatabaseErrorLog = (error: Error, what: string) => void;

export interface Database {
  /** What modules get: the Kysely instance and the abilities of this database (prepared reads, threads). */
  data: DataAccess<any>;
  /** `data.db`, for the composition root, the CLI and the tests. */
  db: Kysely<any>;
  dialect: Dialect;
  /** How the service is deployed on this database (one owning process or several instances). */
  traits: DeploymentTraits;
  /** Human-readable target, without credentials, for the start-up log. */
  describe: string;
  /**
   * PostgreSQL only: a connection of its own, outside the pool, for work that holds one for the life of the
   * instance (the change feed's LISTEN). The caller ends it. Absent behind a transaction pooler without a direct URL,
   * where no connection is a session of its own.
   */
  connectDedicated?: () => Promise<pg.Client>;
  /**
   * Where work that needs a session runs (migrations with their advisory lock, SET before VACUUM): `db` itself, or a
   * small pool on the direct URL behind a transaction pooler; absent behind one without a direct URL.
   */
  sessionDb?: Kysely<any>;
  /** What does not work as it should in this deployment (a pooler without a direct URL), for the start-up log. */
  limitations: readonly string[];
  /**
   * SQLite: the planner's statistics changed (an ANALYZE on the main connection); the reader threads' connections,
   * which loaded them when they opened, open anew before their next read.
   */
  statisticsChanged?: () => void;
  /**
   * SQLite: starts the reader threads and the writer thread now rather than at the first read or write, and resolves
   * once they run. The start command calls it before it listens: a thread's start costs some 60-85 ms of CPU, which
   * the first create after a start waited for (docs/benchmarks.md, twelfth run).
   */
  openThreads?: () => Promise<void>;
  /** How busy the database's connections and threads are now, for metrics. */
  load(): DatabaseLoad;
  destroy(): Promise<void>;
}

/** A snapshot of the database's queues; a field is absent where this engine has no such thing. */
export interface DatabaseLoad {
  /** PostgreSQL: connections of the pool, those running a query or a transaction, and callers waiting for one. */
  pool?: { total: number; inUse: number; waiting: number };
  /** SQLite: reads sent to the reader threads and not answered yet. */
  readerQueue?: number;
  /** SQLite: write transactions handed to the writer thread and not committed yet. */
  writerQueue?: number;
  /**
   * PostgreSQL: the pool connections' named prepared statements since the start: runs of a statement the connection
   * kept, statements prepared, and statements closed to make room (StatementLru).
   */
  statements?: StatementCounts;
}

/** The direct reader, its reads in spans when tracing is on (a read answered undefined goes on through Kysely). */
function traceDirect(reader: DirectReader, spans: StatementSpans | undefined): DirectReader {
  if (!spans) return reader;
  return (sql, parameters, options) => spans.run('sqlite', sql, () => reader(sql, parameters, options));
}

const isPostgresUrl = (url?: string) => !!url && /^postgres(ql)?:\/\//i.test(url);

export function createDatabase(options: DatabaseOptions): Database {
  if (isPostgresUrl(options.url)) return createPostgres(options);
  // The config refuses other schemes with a message for the operator; this keeps any other caller off SQLite too.
  if (options.url) throw new Error('database URL: only postgres:// and postgresql:// are served');
  return createSqlite(options);
}

function createSqlite(options: DatabaseOptions): Database {
  const file = options.sqliteFile ?? join(options.dataDir, 'svc.sqlite');
  if (file !== ':memory:') mkdirSync(options.sqliteFile ? join(file, '..') : options.dataDir, { recursive: true });
  // One process per file (DeploymentTraits.singleInstance): a second start, or a CLI command while the service runs,
  // is refused with DatabaseInUseError before it touches the database.
  const lock = file !== ':memory:' ? lockDatabaseFile(file) : undefined;
  let sqlite: SQLite.Database | undefined;
  try {
    sqlite = new SQLite(file);
    for (const setting of sqliteWriteSettings(options.sqliteCacheMiB ?? 64)) sqlite.pragma(setting);
  } catch (err) {
    sqlite?.close();
    lock?.release();
    throw err;
  }
  return openedSqlite(options, file, sqlite, () => lock?.release());
}

function openedSqlite(options: DatabaseOptions, file: string, sqlite: SQLite.Database, unlock: () => void): Database {
  const cacheMiB = options.sqliteCacheMiB ?? 64;
  const spans = options.spans;
  const statements = withStatementCache(sqlite);
  const db = new Kysely<any>({ dialect: new SqliteStatementDialect(statements, options.spans) });
  const threads = options.sqliteReaderThreads ?? 2;
  const readers =
    threads !== 0 && file !== ':memory:' ? new SqliteReaderThreads({ file, threads, cacheMiB }) : undefined;
  const writer =
    options.sqliteWriterThread !== false && file !== ':memory:'
      ? new SqliteWriterThread({ file, settings: sqliteWriteSettings(cacheMiB) })
      : undefined;
  const data: DataAccess = {
    db,
    // Prepared reads skip Kysely's connection hand-over and run batched per turn of the event loop.
    directReader: traceDirect(
      sqliteReadBatcher(sqlite, (text) => statements.prepare(text)),
      options.spans,
    ),
    offThreadReader:
      readers &&
      (spans
        ? (text, parameters, arrays) => spans.run('sqlite', text, () => readers.read(text, parameters, arrays))
        : (text, parameters, arrays) => readers.read(text, parameters, arrays)),
    offThreadWriter:
      writer &&
      (spans
        ? (writes, keyBase) => spans.run('sqlite', 'begin', () => writer.run(writes, keyBase))
        : (writes, keyBase) => writer.run(writes, keyBase)),
  };
  const destroy = async () => {
    try {
      await readers?.close();
      await writer?.close();
      await db.destroy();
    } finally {
      unlock();
    }
  };
  return {
    data,
    db,
    dialect: sqliteDialect,
    traits: { singleInstance: true, singleWriter: true },
    describe: `sqlite:${file}`,
    sessionDb: db,
    limitations: [],
    statisticsChanged: readers && (() => readers.statisticsChanged()),
    openThreads: async () => {
      await Promise.all([readers?.open(), writer?.open()]);
    },
    load: () => ({ readerQueue: readers?.queued ?? 0, writerQueue: writer?.queued ?? 0 }),
    destroy,
  };
}

/**
 * The settings of a connection that writes (the main one, and the writer thread's, which must behave alike), as
 * PRAGMA statements.
 */
function sqliteWriteSettings(cacheMiB: number): string[] {
  return [
    'journal_mode = WAL',
    'synchronous = NORMAL',
    'foreign_keys = ON',
    'busy_timeout = 5000',
    `cache_size = ${-Math.round(cacheMiB * 1024)}`,
    // Checkpoint after 10,000 WAL pages (40 MB) instead of 1,000: index rows land on pages all over their b-trees,
    // and a page written again before the next checkpoint is copied once (creates with value index rows: +50%
    // measured, docs/benchmarks.md "Storage search"). The WAL file is cut back to 64 MB after a checkpoint.
    'wal_autocheckpoint = 10000',
    `journal_size_limit = ${64 * 1024 * 1024}`,
    // Statement and savepoint journals (every multi-row insert inside the group commit's transaction has one) and
    // temporary b-trees in memory, not in temporary files: value rows of 6 per item, 50 items per transaction, each
    // in its savepoint: 50 -> 34 us per item measured in isolation.
    'temp_store = MEMORY',
  ];
}

/**
 * Kysely prepares every query anew; preparing costs more than running a small indexed query, so
 * statements are kept by their SQL text (and apart for rows as arrays: raw mode belongs to the statement).
 * Kysely runs one query at a time on the connection, so a cached statement is never in use twice.
 */
function withStatementCache(sqlite: SQLite.Database, max = 1000): StatementCache {
  const objects = new Map<string, SQLite.Statement>();
  const arrays = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string, asArrays = false) {
      const cache = asArrays ? arrays : objects;
      let stmt = cache.get(text);
      if (!stmt) {
        stmt = sqlite.prepare(text);
        if (asArrays) stmt.raw(true);
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
        cache.set(text, stmt);
      }
      return stmt;
    },
  };
}

function createPostgres(options: DatabaseOptions): Database {
  const types = {
    getTypeParser: (oid: number, format?: any) => {
      // int8 and numeric counts as JS numbers: epoch milliseconds fit in 2^53.
      if (oid === 20) return (v: string) => Number(v);
      return pg.types.getTypeParser(oid, format);
    },
  };
  // JIT compilation off: the service's statements are short, and a list whose plan the planner costs high (the
  // document fallbacks of a query) paid 150-250 ms of JIT for 2 ms of execution (jit_above_cost is a cost, not a time).
  // Parallel query off too: a worker costs ~4 ms to start, and a list's walk of a few hundred index rows that the
  // planner costed as parallel (a sort walk with a range filter) took 8 ms instead of ~1.5; under load, lists share
  // the cores anyway.
  const sessionOptions = [
    '-c jit=off',
    '-c max_parallel_workers_per_gather=0',
    ...(options.pgSchema ? [`-c search_path=${options.pgSchema}`] : []),
  ].join(' ');
  // Behind a transaction pooler each transaction may run on another server connection: nothing may outlive one (named
  // statements, session settings). PgBouncer before 1.23 refuses the `options` startup parameter outright.
  const pooled = options.pooler === 'transaction';
  if (pooled && options.pgSchema) throw new Error('pgSchema needs session settings, which a transaction pooler drops');
  const counts: StatementCounts = { hits: 0, misses: 0, evictions: 0 };
  const preparedPerConnection = options.preparedStatementsPerConnection;
  const open = (url: string | undefined, max: number, session: boolean, named = session) => {
    const pool = new pg.Pool({
      connectionString: url,
      max,
      types: types as any,
      ...(session ? { options: sessionOptions } : {}),
    });
    // An idle client that loses its server must not crash the process (the pool replaces it); it is logged.
    pool.on('error', (error) => options.logError(error, 'idle PostgreSQL pool connection failed'));
    // Statements are issued with a QueryConfig of what each asks for (named prepared, rows as arrays).
    const statementOptions = { named, preparedPerConnection, counts };
    return {
      pool,
      db: new Kysely<any>({ dialect: new PostgresStatementDialect(pool, statementOptions, options.spans) }),
    };
  };
  const main = open(options.url, options.poolSize ?? 10, !pooled, !pooled || options.poolerPreparedStatements === true);
  const { db, pool } = main;
  // What needs a session: the pool itself, or (behind a pooler) two connections on the direct URL, opened when used.
  const direct = pooled && options.directUrl ? open(options.directUrl, 2, true) : undefined;
  const sessionDb = pooled ? direct?.db : db;
  const sessionUrl = pooled ? options.directUrl : options.url;
  const safe = safeUrl(options.url);
  const connectDedicated =
    sessionUrl === undefined
      ? undefined
      : async () => {
          const client = new pg.Client({ connectionString: sessionUrl, options: sessionOptions });
          await client.connect();
          return client;
        };
  return {
    data: { db },
    db,
    dialect: postgresDialect,
    traits: { singleInstance: false, singleWriter: false },
    describe: safe,
    connectDedicated,
    sessionDb,
    limitations: pooled && !options.directUrl ? POOLED_WITHOUT_SESSION : [],
    load: () => ({
      pool: { total: pool.totalCount, inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount },
      statements: { ...counts },
    }),
    destroy: async () => {
      await direct?.db.destroy();
      await db.destroy();
    },
  };
}

/** What a deployment behind a transaction pooler loses without `database.directUrl` (logged at start). */
const POOLED_WITHOUT_SESSION = [
  'the change feed cannot LISTEN: events written on other instances reach live streams (notifications SSE) and caches of this one only when this instance writes an event of the same tenant, caches built on the feed stay off (session and notification list caches), and /readyz reports the listener as not connected',
  'migrations run without their advisory lock held on one session: two instances migrating at once may collide, and a failed migration can leave the lock held on a pooled server connection',
  'the statistics upkeep vacuums without its cost delay (it cannot SET it on a session)',
];

/** The URL without credentials, for logs. */
function safeUrl(url: string | undefined): string {
  try {
    const u = new URL(url!);
    return `postgres://${u.host}${u.pathname}`;
  } catch {
    return 'postgres';
  }
}
