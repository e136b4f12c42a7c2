// Reads of SQLite run on threads of their own, each with its own read-only connection to the same file (WAL lets
// readers run beside the writer and each other), so that a heavy read (a list over a large store) neither stops
// the event loop nor waits for it: on a machine of 2 cores the main thread answers HTTP while a reader thread runs
// the statements (docs/benchmarks.md, "SQLite lists on reader threads").
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { batchPerTurn, type TurnBatchEntry } from '../async/turn-batch.js';

/** One read: the statement's SQL text and its parameters; `arrays`: its rows as arrays (runAs.arrays). */
export interface ThreadRead {
  sql: string;
  parameters: readonly unknown[];
  arrays: boolean;
}

/** A read's rows: arrays for statements set so by rowsAsArrays, objects otherwise (as on the main connection). */
export type ThreadRows = unknown[];

export interface SqliteReaderThreadsOptions {
  /** The database file (never ':memory:': a thread cannot open another connection's memory database). */
  file: string;
  /** Reader threads; 0 or less: one per core but one, at least one. */
  threads: number;
  /** Each reader connection's page cache in MiB. */
  cacheMiB: number;
}

/** Reads handed to a thread at once (they run in one read transaction there: one snapshot). */
const MAX_BATCH = 64;

/**
 * What a reader thread answers for one read. The rows travel packed: the strings of all cells concatenated into
 * one (structured cloning 100 rows of 6 cells, a page's documents, cost the main thread 200 us; one string and an
 * array, 60 us), `values` holding every other cell and `undefined` where a string goes, `lengths` the strings'.
 */
type Packed =
  | { ok: true; width: number; columns?: string[]; text: string; lengths: number[]; values: unknown[] }
  | { ok: false; message: string; code?: string };

/** The reader thread: CommonJS run with `eval`, so that it needs no file of its own next to the compiled code. */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
let db, begin, commit;
// A connection loads the planner's statistics (sqlite_stat1) with the schema, and again only when the schema changes:
// an ANALYZE on another connection does not change it, so the thread opens its connection anew when told that the
// statistics changed (SqliteReaderThreads.statisticsChanged), and its statements are planned with them.
function open() {
  db?.close();
  db = new SQLite(workerData.file, { readonly: true, fileMustExist: true });
  db.pragma('cache_size = ' + (-workerData.cacheKiB));
  db.pragma('temp_store = MEMORY');
  db.pragma('busy_timeout = 5000');
  begin = db.prepare('BEGIN');
  commit = db.prepare('COMMIT');
}
open();
// Statements by the number the main thread gave their SQL text (it sends the text with the first read only).
let statements = new Map();
function prepare(sql, raw) {
  const st = db.prepare(sql);
  if (!st.reader) throw Object.assign(new Error('a reader thread runs reads only'), { code: 'SVC_NOT_A_READ' });
  if (raw) st.raw(true);
  return { st, raw, columns: raw ? undefined : st.columns().map((c) => c.name) };
}
function pack({ raw, columns }, rows) {
  const width = raw ? (rows.length > 0 ? rows[0].length : 0) : columns.length;
  let text = '';
  const lengths = [];
  const values = new Array(rows.length * width);
  let k = 0;
  for (const row of rows) {
    const cells = raw ? row : columns.map((c) => row[c]);
    for (let j = 0; j < width; j++) {
      const v = cells[j];
      if (typeof v === 'string') {
        text += v;
        lengths.push(v.length);
        values[k++] = undefined;
      } else values[k++] = v;
    }
  }
  return { ok: true, width, columns, text, lengths, values };
}
parentPort.on('message', ({ id, reset, reopen, reads }) => {
  if (reopen) open();
  if (reset) statements = new Map();
  const together = reads.length > 1;
  if (together) begin.run();
  try {
    reads.forEach(({ statement, sql, arrays, parameters }, n) => {
      let result;
      try {
        let prepared = statements.get(statement);
        if (!prepared) statements.set(statement, (prepared = prepare(sql, arrays)));
        result = pack(prepared, prepared.st.all(parameters));
      } catch (error) {
        result = { ok: false, message: String(error && error.message), code: error && error.code };
      }
      // Each answer as soon as it is there: the main thread answers its request while the next read runs.
      parentPort.postMessage({ id, n, last: n === reads.length - 1, result });
    });
  } finally {
    if (together && db.inTransaction) commit.run();
  }
});
`;

interface Thread {
  worker: Worker;
  /** Resolves once the thread runs (startSqliteThread). */
  online: Promise<void>;
  /** Batches sent and not answered, by id. */
  waiting: Map<number, TurnBatchEntry<ThreadRead, ThreadRows>[]>;
  /** The numbers of the statements the thread has prepared, by SQL text (sent once: cloning it cost 6% of a list). */
  statements: Map<string, number>;
  /** The same for statements read as arrays. */
  arrayStatements: Map<string, number>;
  /** The statistics' generation its connection was opened with (SqliteReaderThreads.statisticsChanged). */
  statistics: number;
}

/** Statements a thread keeps prepared; past them it forgets them all and starts again. */
const MAX_STATEMENTS = 1000;

/**
 * A few threads that run read statements on connections of their own. Reads of one turn of the event loop go to
 * one thread together (batchPerTurn), to the thread with the fewest batches under way. A thread starts on the first
 * read, or all of them at `open`; one that dies fails its reads and is started again on the next.
 */
export class SqliteReaderThreads {
  private readonly threads: Array<Thread | undefined>;
  private nextId = 0;
  private closed = false;
  /** Counts the changes of the planner's statistics (statisticsChanged). */
  private statistics = 0;
  private readonly send = batchPerTurn<ThreadRead, ThreadRows>((batch) => this.dispatch(batch), MAX_BATCH);

  constructor(private readonly options: SqliteReaderThreadsOptions) {
    const count = options.threads > 0 ? options.threads : Math.max(1, availableParallelism() - 1);
    this.threads = new Array<Thread | undefined>(count).fill(undefined);
  }

  /** Reads sent to the threads and not answered yet (metrics); the reads of the current turn are not sent yet. */
  get queued(): number {
    let n = 0;
    for (const t of this.threads) for (const batch of t?.waiting.values() ?? []) n += batch.length;
    return n;
  }

  /** The rows of a read statement, run on a reader thread. */
  read(sql: string, parameters: readonly unknown[], arrays = false): Promise<ThreadRows> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    return this.send({ sql, parameters, arrays });
  }

  /**
   * The planner's statistics changed (an ANALYZE on another connection: the statistics upkeep): each thread opens its
   * connection anew before its next read, which loads them (its connection would keep those it opened with, and its
   * statements their plans: at 100,000 items, the statistics of the store's first few hundred items).
   */
  statisticsChanged(): void {
    this.statistics++;
  }

  /** Starts every thread not running yet; resolves once they run (the start command, before it listens). */
  async open(): Promise<void> {
    if (this.closed) return;
    for (let slot = 0; slot < this.threads.length; slot++) this.threads[slot] ??= this.start(slot);
    await Promise.all(this.threads.map((t) => t?.online));
  }

  async close(): Promise<void> {
    this.closed = true;
    const running = this.threads.filter((t): t is Thread => t !== undefined);
    this.threads.fill(undefined);
    await Promise.all(running.map((t) => t.worker.terminate()));
  }

  private dispatch(batch: TurnBatchEntry<ThreadRead, ThreadRows>[]): void {
    if (this.closed) {
      for (const entry of batch) entry.reject(new Error('the database is closed'));
      return;
    }
    let slot = 0;
    for (let i = 1; i < this.threads.length; i++) {
      if ((this.threads[i]?.waiting.size ?? 0) < (this.threads[slot]?.waiting.size ?? 0)) slot = i;
    }
    const thread = (this.threads[slot] ??= this.start(slot));
    const id = this.nextId++;
    thread.waiting.set(id, batch);
    const reopen = thread.statistics !== this.statistics;
    thread.statistics = this.statistics;
    const reset = reopen || thread.statements.size + thread.arrayStatements.size + batch.length > MAX_STATEMENTS;
    if (reset) {
      thread.statements.clear();
      thread.arrayStatements.clear();
    }
    const reads = batch.map(({ input: { sql, parameters, arrays } }) => {
      // A text read as objects and as arrays is two statements there (raw mode belongs to the statement).
      const statements = arrays ? thread.arrayStatements : thread.statements;
      const known = statements.get(sql);
      if (known !== undefined) return { statement: known, parameters };
      const statement = thread.statements.size + thread.arrayStatements.size;
      statements.set(sql, statement);
      return { statement, sql, arrays, parameters };
    });
    thread.worker.postMessage({ id, reset, reopen, reads });
  }

  private start(slot: number): Thread {
    const { worker, online } = startSqliteThread(THREAD_SOURCE, this.options.file, {
      cacheKiB: Math.round(this.options.cacheMiB * 1024),
    });
    const thread: Thread = {
      worker,
      online,
      waiting: new Map(),
      statements: new Map(),
      arrayStatements: new Map(),
      statistics: this.statistics,
    };
    // The threads never keep the process alive; close() ends them.
    worker.unref();
    worker.on('message', ({ id, n, last, result }: { id: number; n: number; last: boolean; result: Packed }) => {
      const entry = thread.waiting.get(id)?.[n];
      if (last) thread.waiting.delete(id);
      if (!entry) return;
      if (result.ok) entry.resolve(unpack(result));
      else entry.reject(Object.assign(new Error(result.message), { code: result.code }));
    });
    const fail = (error: unknown) => {
      if (this.threads[slot] === thread) this.threads[slot] = undefined;
      for (const batch of thread.waiting.values()) for (const entry of batch) entry.reject(error);
      thread.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`a SQLite reader thread stopped (exit code ${code})`)));
    return thread;
  }
}

/**
 * A thread running `source` (CommonJS, evaluated) that opens the database file itself: its workerData has the
 * driver's path, the file, and `extra`. `online` resolves once the thread runs its source (its isolate made, Node's
 * bootstrap done: some 60-85 ms of CPU, the most of a thread's start), or has failed or stopped, which its first use
 * then answers; it never rejects.
 */
export function startSqliteThread(
  source: string,
  file: string,
  extra: Record<string, unknown>,
): { worker: Worker; online: Promise<void> } {
  const worker = new Worker(source, {
    eval: true,
    workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file, ...extra },
  });
  const online = new Promise<void>((resolve) => {
    worker.once('online', () => resolve());
    worker.once('error', () => resolve());
    worker.once('exit', () => resolve());
  });
  return { worker, online };
}

/** The rows of a packed answer (see Packed). */
function unpack(packed: Extract<Packed, { ok: true }>): ThreadRows {
  const { width, columns, text, lengths, values } = packed;
  const rows: unknown[] = [];
  let at = 0;
  let s = 0;
  for (let k = 0; k < values.length; k += width) {
    const cells = new Array<unknown>(width);
    for (let j = 0; j < width; j++) {
      const v = values[k + j];
      if (v === undefined) {
        const end = at + lengths[s++];
        cells[j] = text.slice(at, end);
        at = end;
      } else if (v instanceof Uint8Array) {
        // A blob: better-sqlite3 answers a Buffer, which cloning made a plain Uint8Array.
        cells[j] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      } else cells[j] = v;
    }
    if (!columns) {
      rows.push(cells);
      continue;
    }
    const row: Record<string, unknown> = {};
    columns.forEach((name, j) => (row[name] = cells[j]));
    rows.push(row);
  }
  return rows;
}
