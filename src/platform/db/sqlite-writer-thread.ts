// Writes of SQLite that a module hands over whole (the storage module's batches of creates) run on a thread of their
// own, with a read-write connection to the same file: the statements, and above all the commit that writes their
// pages to the WAL, then cost the main thread nothing, which answers HTTP meanwhile (SQLite creates: 47% of the
// service's busy time was inside SQLite, the commits the largest part; docs/benchmarks.md, session 16).
import type { Worker } from 'node:worker_threads';
import { startSqliteThread } from './sqlite-reader-threads.js';
import type { ThreadWrite } from './data-access.js';

export type { ThreadWrite } from './data-access.js';

export interface SqliteWriterThreadOptions {
  /** The database file (never ':memory:'). */
  file: string;
  /** The connection's settings as PRAGMA statements (database.ts sqliteWriteSettings, the main connection's). */
  settings: string[];
}

type Answer = { ok: true; answers: unknown[] } | { ok: false; message: string; code?: string };

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
const statements = new Map();
const begin = db.prepare('BEGIN IMMEDIATE');
const commit = db.prepare('COMMIT');
const rollback = db.prepare('ROLLBACK');
function prepared(sql) {
  let st = statements.get(sql);
  if (!st) {
    if (statements.size >= 1000) statements.clear();
    statements.set(sql, (st = db.prepare(sql)));
  }
  return st;
}
parentPort.on('message', ({ id, writes, keyBase }) => {
  const answers = [];
  let answer = { ok: true, answers };
  try {
    begin.run();
    const base = keyBase === undefined ? 0 : Number(prepared(keyBase).pluck().get());
    for (const { sql, parameters, keyed } of writes) {
      if (keyed) for (const at of keyed) parameters[at] += base;
      const st = prepared(sql);
      if (st.reader) answers.push(st.pluck().get(parameters));
      else st.run(parameters);
    }
    commit.run();
  } catch (error) {
    if (db.inTransaction) rollback.run();
    answer = { ok: false, message: String(error && error.message), code: error && error.code };
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
    return new Promise<unknown[]>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, writes, keyBase });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = startSqliteThread(THREAD_SOURCE, this.options.file, { settings: this.options.settings });
    worker.unref();
    worker.on('message', ({ id, answer }: { id: number; answer: Answer }) => {
      const entry = this.waiting.get(id);
      this.waiting.delete(id);
      if (!entry) return;
      if (answer.ok) entry.resolve(answer.answers);
      else entry.reject(Object.assign(new Error(answer.message), { code: answer.code }));
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
