/** One call waiting in a batch: its input and how to settle its promise. */
export interface TurnBatchEntry<In, Out> {
  readonly input: In;
  resolve(value: Out): void;
  reject(error: unknown): void;
}

/**
 * Collects the calls made during one turn of the event loop and hands them to `flush` together, once the poll
 * phase has passed every ready request to its handler (`setImmediate`). Concurrent requests then share one
 * database round trip or one read transaction instead of paying for one each. `flush` settles every entry it
 * gets; entries it leaves unsettled when it throws are rejected with that error. At most `maxBatch` entries
 * go to one call of `flush`.
 */
export function batchPerTurn<In, Out>(
  flush: (entries: TurnBatchEntry<In, Out>[]) => void | Promise<void>,
  maxBatch = 1000,
): (input: In) => Promise<Out> {
  let pending: TurnBatchEntry<In, Out>[] = [];

  const run = (entries: TurnBatchEntry<In, Out>[]) => {
    const failAll = (error: unknown) => {
      for (const entry of entries) entry.reject(error); // a settled promise ignores this
    };
    try {
      const done = flush(entries);
      if (done) done.catch(failAll);
    } catch (error) {
      failAll(error);
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
      pending.push({ input, resolve, reject });
    });
}
