/** One call waiting in a batch: its input and how to settle its promise. */
export interface TurnBatchEntry<In, Out> {
  readonly input: In;
  resolve(value: Out): void;
  reject(error: unknown): void;
}

interface Pending<In, Out> extends TurnBatchEntry<In, Out> {
  settled: boolean;
}

/** How large one call of `flush` may get: entries, and optionally their summed weight (e.g. bytes). */
export interface TurnBatchLimits<In> {
  maxBatch: number;
  /** An entry heavier than this on its own still goes, alone. */
  maxWeight?: number;
  weigh?: (input: In) => number;
  /** Calls of `flush` under way at most; calls made meanwhile wait and go together when one ends. */
  concurrency?: number;
  /**
   * With `concurrency` above 1: a flush beside others under way starts only once this many calls wait (default 1);
   * fewer wait for a flush to end. The first few calls of a turn then do not take a flush of their own beside a large
   * one (a statement and a commit for a handful of creates) but go with the calls that follow them.
   */
  minBeside?: number;
}

/**
 * Collects the calls made during one turn of the event loop and hands them to `flush` together, once the poll
 * phase has passed every ready request to its handler (`setImmediate`). Concurrent requests then share one
 * database round trip or one read transaction instead of paying for one each. A call of `flush` gets at most
 * `maxBatch` entries (a number, or limits with a weight), and settles every entry it gets. With `concurrency`,
 * calls made while that many flushes are under way wait for one to end and then go together (group commit).
 *
 * When `flush` fails (throws or rejects) for several entries, those it left unsettled are run again one by one
 * (at once, whatever the concurrency), so that one caller's bad input can fail only that caller; an entry that
 * fails alone is rejected with the error.
 */
export function batchPerTurn<In, Out>(
  flush: (entries: TurnBatchEntry<In, Out>[]) => void | Promise<void>,
  limits: number | TurnBatchLimits<In> = 1000,
): (input: In) => Promise<Out> {
  const {
    maxBatch,
    maxWeight = Infinity,
    weigh,
    concurrency = Infinity,
    minBeside = 1,
  } = typeof limits === 'number' ? { maxBatch: limits } : limits;
  let pending: Pending<In, Out>[] = [];
  let scheduled = false;
  let running = 0;

  const schedule = () => {
    if (scheduled || running >= concurrency) return;
    scheduled = true;
    setImmediate(flushAll);
  };
  const ended = () => {
    running--;
    if (pending.length > 0) schedule();
  };
  const run = (entries: Pending<In, Out>[]) => {
    running++;
    const failed = (error: unknown) => {
      const open = entries.filter((entry) => !entry.settled);
      if (entries.length > 1) for (const entry of open) run([entry]);
      else for (const entry of open) entry.reject(error);
    };
    let done: void | Promise<void> | undefined;
    try {
      done = flush(entries);
    } catch (error) {
      failed(error);
    }
    if (done) done.catch(failed).finally(ended);
    else ended();
  };

  const flushAll = () => {
    scheduled = false;
    let from = 0;
    while (from < pending.length && running < concurrency && (running === 0 || pending.length - from >= minBeside)) {
      let to = from;
      let weight = 0;
      for (; to < pending.length; to++) {
        const w = weigh ? weigh(pending[to].input) : 0;
        if (to > from && (to - from >= maxBatch || weight + w > maxWeight)) break;
        weight += w;
      }
      const chunk = pending.slice(from, to);
      from = to;
      run(chunk);
    }
    pending = pending.slice(from);
  };

  return (input) =>
    new Promise<Out>((resolve, reject) => {
      schedule();
      const entry: Pending<In, Out> = {
        input,
        settled: false,
        resolve(value) {
          entry.settled = true;
          resolve(value);
        },
        reject(error) {
          entry.settled = true;
          reject(error);
        },
      };
      pending.push(entry);
    });
}
