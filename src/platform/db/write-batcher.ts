import { CompiledQuery, type Kysely, type Transaction } from 'kysely';

type Job<Tables, T> = (trx: Transaction<Tables>) => Promise<T>;
interface Pending<Tables> {
  job: Job<Tables, unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const SAVEPOINT = CompiledQuery.raw('savepoint batched_write');
const ROLLBACK_TO = CompiledQuery.raw('rollback to savepoint batched_write');
const RELEASE = CompiledQuery.raw('release savepoint batched_write');

/**
 * Group commit for an engine with a single writer (SQLite): write transactions that arrive while another
 * batch runs share one transaction, each inside its own savepoint. A job that fails is rolled back to its
 * savepoint alone and rejected with its own error; the others commit together. Every job answers only after
 * the commit, so an answered write is a committed write. With `maxBatch` 1 (PostgreSQL, whose concurrent
 * transactions already share WAL flushes) each job is simply its own transaction.
 */
export class WriteBatcher<Tables> {
  private queue: Pending<Tables>[] = [];
  private running = false;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly maxBatch: number,
  ) {}

  /** Whether concurrent jobs share transactions (SQLite); otherwise each job is its own (PostgreSQL). */
  get groups(): boolean {
    return this.maxBatch > 1;
  }

  run<T>(job: Job<Tables, T>): Promise<T> {
    if (this.maxBatch <= 1) return this.db.transaction().execute(job);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ job, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length) await this.runBatch(this.queue.splice(0, this.maxBatch));
    } finally {
      this.running = false;
    }
  }

  private async runBatch(batch: Pending<Tables>[]): Promise<void> {
    const outcomes: Outcome[] = [];
    try {
      await this.db.transaction().execute(async (trx) => {
        // A batch of one needs no savepoint: its failure rolls back the transaction, which is only its own.
        if (batch.length === 1) {
          outcomes.push({ ok: true, value: await batch[0].job(trx) });
          return;
        }
        for (const p of batch) {
          await trx.executeQuery(SAVEPOINT);
          try {
            outcomes.push({ ok: true, value: await p.job(trx) });
          } catch (error) {
            await trx.executeQuery(ROLLBACK_TO);
            outcomes.push({ ok: false, error });
          }
          await trx.executeQuery(RELEASE);
        }
      });
    } catch (error) {
      // The commit (or the transaction itself) failed: nothing of this batch is stored.
      for (const p of batch) p.reject(error);
      return;
    }
    batch.forEach((p, n) => {
      const o = outcomes[n];
      if (o.ok) p.resolve(o.value);
      else p.reject(o.error);
    });
  }
}
