import { describe, expect, it } from 'vitest';
import { batchPerTurn } from './turn-batch.js';

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
});
