/** One call waiting in a batch: its input and how to settle its promise. */
export interface TurnBatchEntry<In, Out> {
  readonly input: In;
  resolve(value: Out): void;
  reject(error: unknown): void;
}

interface Pending<In, Out> extends TurnBatchEntry<In, Out> {
  settled: boolean;
}

/**
 * Collects the calls made during one turn of the event loop and hands them to `flush` together, once the poll
 * phase has passed every ready request to its handler (`setImmediate`). Concurrent requests then share one
 * database round trip or one read transaction instead of paying for one each. At most `maxBatch` entries go to
 * one call of `flush`, which settles every entry it gets.
 *
 * When `flush` fails (throws or rejects) for several entries, those it left unsettled are run again one by one,
 * so that one caller's bad input can fail only that caller; an entry that fails alone is rejected with the error.
 */
export function batchPerTurn<In, Out>(
  flush: (entries: TurnBatchEntry<In, Out>[]) => void | Promise<void>,
  maxBatch = 1000,
): (input: In) => Promise<Out> {
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
    for (let from = 0; from < batch.length; from += maxBatch) run(batch.slice(from, from + maxBatch));
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
