// Writes of SQLite that a module hands over whole (the storage module's batches of creates) run on a thread of their
// own, with a read-write connection to the same file: the statements, and above all the commit that writes their
// pages to the WAL, then cost the main thread nothing, which answers HTTP meanwhile (SQLite creates: 47% of the
// service's busy time was inside SQLite, the commits the largest part; docs/benchmarks.md, session 16).
import type { Worker } from 'node:worker_threads';
import { startSqliteThread } from './sqlite-reader-threads.js';
import type { ThreadWrite } from './data-access.js';
import { packWrites, UNPACK_WRITES_SOURCE } from './thread-write-packing.js';

export type { ThreadWrite } from './data-access.js';

export interface SqliteWriterThreadOptions {
  /** The database file (never ':memory:'). */
  file: string;
  /** The connection's settings as PRAGMA statements (database.ts sqliteWriteSettings, the main connection's). */
  settings: string[];
}

/** Statements the thread keeps prepared; past them it forgets them all and starts again. */
const MAX_STATEMENTS = 1000;

/** `forget`: the thread failed to prepare a statement or did not know one; their numbers are to be given anew. */
type Answer = { ok: true; answers: unknown[] } | { ok: false; message: string; code?: string; forget: boolean };

/**
 * The writer thread: CommonJS run with `eval`, as the reader threads. Its connection gets the main one's settings;
 * each message is one transaction, taken with BEGIN IMMEDIATE (the write lock at once). A statement that answers
 * rows (RETURNING) has the first value of its first row answered, in the order of the writes.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { fileMustExist: true });
for (const setting of workerData.settings) db.pragma(setting);
// Statements by the number the main thread gave their SQL text (it sends the text with the first write only).
let statements = new Map();
const begin = db.prepare('BEGIN IMMEDIATE');
const commit = db.prepare('COMMIT');
const rollback = db.prepare('ROLLBACK');
const keyBases = new Map();
${UNPACK_WRITES_SOURCE}
parentPort.on('message', ({ id, reset, keyBase, packed }) => {
  const answers = [];
  let answer = { ok: true, answers };
  let known = false;
  try {
    if (reset) statements = new Map();
    for (const { statement, sql } of packed.texts) statements.set(statement, db.prepare(sql));
    known = true;
    begin.run();
    let base = 0;
    if (keyBase !== undefined) {
      if (!keyBases.has(keyBase)) keyBases.set(keyBase, db.prepare(keyBase).pluck());
      base = Number(keyBases.get(keyBase).get());
    }
    unpackWrites(packed, (statement, parameters, keyed) => {
      const st = statements.get(statement);
      if (!st) {
        known = false;
        throw new Error('the writer thread does not know statement ' + statement);
      }
      for (const at of keyed) parameters[at] += base;
      // Spread: better-sqlite3 reads arguments directly, an array's elements one by one through the engine's API.
      if (st.reader) answers.push(st.pluck().get(...parameters));
      else st.run(...parameters);
    });
    commit.run();
  } catch (error) {
    if (db.inTransaction) rollback.run();
    answer = { ok: false, message: String(error && error.message), code: error && error.code, forget: !known };
  }
  parentPort.postMessage({ id, answer });
});
`;

/**
 * A thread that runs whole write transactions on a connection of its own. The caller makes sure no other write
 * transaction is open meanwhile (write-off-thread.ts writeOffThread holds the main connection), so the thread never waits for
 * the write lock and the main thread never waits for the thread's. A thread that dies fails its writes (rolled back
 * with it) and is started again on the next.
 */
export class SqliteWriterThread {
  private worker?: Worker;
  /** Resolves once the current worker runs (startSqliteThread). */
  private online?: Promise<void>;
  /** The numbers of the statements the thread has prepared, by SQL text (sent once; cleared with a new thread). */
  private statements = new Map<string, number>();
  /** The thread is to forget its statements before the next write (too many, or a write failed). */
  private reset = false;
  private readonly waiting = new Map<number, { resolve(answers: unknown[]): void; reject(error: unknown): void }>();
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: SqliteWriterThreadOptions) {}

  /** Transactions handed to the thread and not committed yet (metrics). */
  get queued(): number {
    return this.waiting.size;
  }

  /**
   * Runs the statements in one transaction on the thread; resolves after its commit with what the statements that
   * answer rows answered (the first value of the first row of each, in order), rejects (rolled back) on an error.
   * `keyBase`: a query answering one number, read first inside the transaction (under the write lock, so it stays
   * true until the commit), that the thread adds to the writes' `keyed` parameters (new rows' keys after the largest).
   */
  run(writes: readonly ThreadWrite[], keyBase?: string): Promise<unknown[]> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    const reset = this.reset || this.statements.size + writes.length > MAX_STATEMENTS;
    if (reset) this.statements.clear();
    this.reset = false;
    const packed = packWrites(writes, (sql) => {
      const known = this.statements.get(sql);
      if (known !== undefined) return { statement: known, known: true };
      const statement = this.statements.size;
      this.statements.set(sql, statement);
      return { statement, known: false };
    });
    return new Promise<unknown[]>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, reset, keyBase, packed });
    });
  }

  /**
   * Starts the thread unless it runs; resolves once it does (the start command, before it listens: else the first
   * write after a start waited for the thread's start, some 60-85 ms of CPU).
   */
  async open(): Promise<void> {
    if (this.closed) return;
    this.worker ??= this.start();
    await this.online;
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private start(): Worker {
    const { worker, online } = startSqliteThread(THREAD_SOURCE, this.options.file, { settings: this.options.settings });
    this.online = online;
    this.statements = new Map();
    worker.unref();
    worker.on('message', ({ id, answer }: { id: number; answer: Answer }) => {
      const entry = this.waiting.get(id);
      this.waiting.delete(id);
      if (!entry) return;
      if (answer.ok) return entry.resolve(answer.answers);
      if (answer.forget) this.reset = true;
      entry.reject(Object.assign(new Error(answer.message), { code: answer.code }));
    });
    const fail = (error: unknown) => {
      if (this.worker === worker) this.worker = undefined;
      for (const entry of this.waiting.values()) entry.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the SQLite writer thread stopped (exit code ${code})`)));
    return worker;
  }
}
