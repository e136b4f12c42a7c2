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
}

/**
 * Collects the calls made during one turn of the event loop and hands them to `flush` together, once the poll
 * phase has passed every ready request to its handler (`setImmediate`). Concurrent requests then share one
 * database round trip or one read transaction instead of paying for one each. A call of `flush` gets at most
 * `maxBatch` entries (a number, or limits with a weight), and settles every entry it gets.
 *
 * When `flush` fails (throws or rejects) for several entries, those it left unsettled are run again one by one,
 * so that one caller's bad input can fail only that caller; an entry that fails alone is rejected with the error.
 */
export function batchPerTurn<In, Out>(
  flush: (entries: TurnBatchEntry<In, Out>[]) => void | Promise<void>,
  limits: number | TurnBatchLimits<In> = 1000,
): (input: In) => Promise<Out> {
  const { maxBatch, maxWeight = Infinity, weigh } = typeof limits === 'number' ? { maxBatch: limits } : limits;
  let pending: Pending<In, Out>[] = [];

  const run = (entries: Pending<In, Out>[]) => {
    const failed = (error: unknown) => {
      const open = entries.filter((entry) => !entry.settled);
      if (entries.length > 1) for (const entry of open) run([entry]);
      else for (const entry of open) entry.reject(error);
    };
    try {
      const done = flush(entries);
      if (done) done.catch(failed);
    } catch (error) {
      failed(error);
    }
  };

  const flushAll = () => {
    const batch = pending;
    pending = [];
    let chunk: Pending<In, Out>[] = [];
    let weight = 0;
    for (const entry of batch) {
      const w = weigh ? weigh(entry.input) : 0;
      if (chunk.length > 0 && (chunk.length >= maxBatch || weight + w > maxWeight)) {
        run(chunk);
        chunk = [];
        weight = 0;
      }
      chunk.push(entry);
      weight += w;
    }
    if (chunk.length > 0) run(chunk);
  };

  return (input) =>
    new Promise<Out>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flushAll);
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
