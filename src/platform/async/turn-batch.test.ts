import { describe, expect, it } from 'vitest';
import { batchPerTurn, type TurnBatchLimits } from './turn-batch.js';

/** A batcher whose flushes record their inputs and end (answering each input) when their gate is opened, in order. */
function gatedBatches(limits: TurnBatchLimits<number>) {
  const flushes: number[][] = [];
  const gates: Array<() => void> = [];
  const call = batchPerTurn<number, number>((entries) => {
    flushes.push(entries.map((e) => e.input));
    return new Promise<void>((open) =>
      gates.push(() => {
        for (const e of entries) e.resolve(e.input);
        open();
      }),
    );
  }, limits);
  return { call, flushes, gates };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('batchPerTurn', () => {
  it('hands the calls of one turn to one flush, in call order, and answers each with its own value', async () => {
    const flushes: number[][] = [];
    const double = batchPerTurn<number, number>((entries) => {
      flushes.push(entries.map((e) => e.input));
      for (const e of entries) e.resolve(e.input * 2);
    });
    const first = await Promise.all([double(1), double(2), double(3)]);
    const second = await double(4);
    expect(first).toEqual([2, 4, 6]);
    expect(second).toBe(8);
    expect(flushes).toEqual([[1, 2, 3], [4]]);
  });

  it('splits a turn into batches of at most maxBatch', async () => {
    const sizes: number[] = [];
    const echo = batchPerTurn<number, number>((entries) => {
      sizes.push(entries.length);
      for (const e of entries) e.resolve(e.input);
    }, 4);
    expect(await Promise.all(Array.from({ length: 10 }, (_, i) => echo(i)))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(sizes).toEqual([4, 4, 2]);
  });

  it('splits a turn by weight too, and lets an entry heavier than the limit go alone', async () => {
    const batches: number[][] = [];
    const call = batchPerTurn<number, number>(
      (entries) => {
        batches.push(entries.map((e) => e.input));
        for (const e of entries) e.resolve(e.input);
      },
      { maxBatch: 10, maxWeight: 10, weigh: (n) => n },
    );
    await Promise.all([4, 5, 2, 30, 1, 9].map((n) => call(n)));
    expect(batches).toEqual([[4, 5], [2], [30], [1, 9]]);
  });

  it('runs what a failing batch left unsettled again one by one, so only the failing input fails', async () => {
    const flushes: number[][] = [];
    const call = batchPerTurn<number, number>(async (entries) => {
      flushes.push(entries.map((e) => e.input));
      if (entries.some((e) => e.input < 0)) {
        if (entries[0]!.input >= 0) entries[0]!.resolve(entries[0]!.input); // settled before the failure: not run again
        throw new Error('negative input');
      }
      for (const e of entries) e.resolve(e.input);
    });
    const results = await Promise.allSettled([call(1), call(-2), call(3)]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: new Error('negative input') },
      { status: 'fulfilled', value: 3 },
    ]);
    expect(flushes).toEqual([[1, -2, 3], [-2], [3]]);
    const sync = batchPerTurn<number, number>(() => {
      throw new Error('bad statement');
    });
    await expect(sync(1)).rejects.toThrow('bad statement');
    const both = await Promise.allSettled([sync(1), sync(2)]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });

  it('waits for the end of the poll phase: calls from separate I/O callbacks of one turn share a flush', async () => {
    const sizes: number[] = [];
    const call = batchPerTurn<number, number>((entries) => {
      sizes.push(entries.length);
      for (const e of entries) e.resolve(e.input);
    });
    // Two timers due at once run in one timers phase, each followed by its microtasks, before the check phase.
    const both = await new Promise<number[]>((resolve) => {
      const results: Promise<number>[] = [];
      setTimeout(() => results.push(call(1)), 0);
      setTimeout(() => {
        results.push(call(2));
        void Promise.all(results).then(resolve);
      }, 0);
      // Both due before the loop looks at its timers, even if the clock's millisecond changed between the two calls
      // (on a loaded machine the second would otherwise be due a turn later).
      const until = performance.now() + 5;
      while (performance.now() < until);
    });
    expect(both).toEqual([1, 2]);
    expect(sizes).toEqual([2]);
  });
  it('with concurrency, holds the calls made while the flushes under way run, and hands them over together', async () => {
    const { call, flushes, gates } = gatedBatches({ maxBatch: 3, concurrency: 1 });
    const first = call(1);
    await turn();
    const later = [2, 3, 4, 5].map((n) => call(n));
    for (let i = 0; i < 3; i++) await turn();
    expect(flushes).toEqual([[1]]); // the first flush is under way: the others wait, whatever the turns
    gates.shift()!();
    expect(await first).toBe(1);
    await turn(); // the end of the flush schedules the next one for the turn after
    await turn();
    expect(flushes).toEqual([[1], [2, 3, 4]]); // together, within maxBatch
    gates.shift()!();
    await turn();
    await turn();
    expect(flushes).toEqual([[1], [2, 3, 4], [5]]);
    gates.shift()!();
    expect(await Promise.all(later)).toEqual([2, 3, 4, 5]);
  });

  it('with minBeside, a flush beside one under way waits for that many calls; alone, it goes at once', async () => {
    const { call, flushes, gates } = gatedBatches({ maxBatch: 10, concurrency: 2, minBeside: 3 });
    const settled = [call(1)];
    await turn();
    expect(flushes).toEqual([[1]]);
    settled.push(call(2), call(3));
    for (let i = 0; i < 3; i++) await turn();
    expect(flushes).toEqual([[1]]); // two wait beside the one under way: fewer than minBeside
    settled.push(call(4));
    await turn();
    expect(flushes).toEqual([[1], [2, 3, 4]]); // three: a second flush beside the first
    settled.push(call(5));
    await turn();
    await turn();
    expect(flushes).toEqual([[1], [2, 3, 4]]); // both places taken
    gates.shift()!();
    gates.shift()!();
    await turn();
    await turn();
    expect(flushes).toEqual([[1], [2, 3, 4], [5]]); // none under way: one call goes alone
    gates.shift()!();
    expect(await Promise.all(settled)).toEqual([1, 2, 3, 4, 5]);
  });

  it('with concurrency, a flush that fails frees its place', async () => {
    let calls = 0;
    const call = batchPerTurn<number, number>(
      async (entries) => {
        calls++;
        if (entries.some((e) => e.input < 0)) throw new Error('negative input');
        for (const e of entries) e.resolve(e.input);
      },
      { maxBatch: 10, concurrency: 1 },
    );
    await expect(call(-1)).rejects.toThrow('negative input');
    expect(await Promise.all([call(1), call(2)])).toEqual([1, 2]);
    expect(calls).toBe(2);
  });
});
