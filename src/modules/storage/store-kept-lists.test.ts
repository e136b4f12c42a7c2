import { describe, expect, it } from 'vitest';
import { KeptLists } from './store-kept-lists.js';

describe('KeptLists', () => {
  const text = (n: number, c = 'x') => c.repeat(n);

  it('answers what was kept, under the count it was kept with, until its time is up', () => {
    const kept = new KeptLists({ ttlMs: 1000, maxChars: 1600 });
    kept.keep('s', 'a', kept.generation('s'), '7', text(10), 0);
    expect(kept.get('s', 'a', 999)).toMatchObject({ changes: '7', text: text(10) });
    expect(kept.get('s', 'b', 999)).toBeUndefined();
    expect(kept.get('other', 'a', 999)).toBeUndefined();
    expect(kept.get('s', 'a', 1000)).toBeUndefined();
  });

  it('keeps the answers within their size, the oldest going first, and none over a sixteenth of it', () => {
    const kept = new KeptLists({ ttlMs: 1000, maxChars: 1600 });
    kept.keep('s', 'big', kept.generation('s'), '1', text(101), 0);
    expect(kept.get('s', 'big', 1)).toBeUndefined();
    for (let i = 0; i < 16; i++) kept.keep('s', `k${i}`, kept.generation('s'), '1', text(100), 0);
    expect(kept.get('s', 'k0', 1)).toBeDefined();
    kept.keep('s', 'k16', kept.generation('s'), '1', text(100), 0);
    expect(kept.get('s', 'k0', 1)).toBeUndefined();
    expect(kept.get('s', 'k1', 1)).toBeDefined();
    // Kept again under the same key: replaced, its size counted once.
    kept.keep('s', 'k16', kept.generation('s'), '2', text(100, 'y'), 0);
    expect(kept.get('s', 'k16', 1)).toEqual(expect.objectContaining({ changes: '2', text: text(100, 'y') }));
    expect(kept.get('s', 'k1', 1)).toBeDefined();
  });

  it('forgets the answers of one store only', () => {
    const kept = new KeptLists({ ttlMs: 1000, maxChars: 1600 });
    kept.keep('s', 'a', kept.generation('s'), '1', 'A', 0);
    kept.keep('s', 'b', kept.generation('s'), '1', 'B', 0);
    kept.keep('t', 'a', kept.generation('t'), '1', 'C', 0);
    kept.forget('s');
    expect([kept.get('s', 'a', 1), kept.get('s', 'b', 1), kept.get('t', 'a', 1)?.text]).toEqual([
      undefined,
      undefined,
      'C',
    ]);
    // Room made by forgetting is room again: 16 answers of a sixteenth fit.
    for (let i = 0; i < 15; i++) kept.keep('s', `k${i}`, kept.generation('s'), '1', text(100), 0);
    expect(kept.get('s', 'k14', 1)).toBeDefined();
    expect(kept.get('t', 'a', 1)?.text).toBe('C');
  });

  it('keeps no answer read before a write through this instance, and those read after', () => {
    const kept = new KeptLists({ ttlMs: 1000, maxChars: 1600 });
    const before = kept.generation('s');
    const other = kept.generation('t');
    kept.forget('s');
    kept.keep('s', 'a', before, '1', 'A', 0);
    kept.keep('t', 'a', other, '1', 'C', 0);
    expect([kept.get('s', 'a', 1), kept.get('t', 'a', 1)?.text]).toEqual([undefined, 'C']);
    kept.keep('s', 'a', kept.generation('s'), '2', 'B', 0);
    expect(kept.get('s', 'a', 1)?.text).toBe('B');
  });

  it('keeps no answer read before the generations of too many stores were forgotten', () => {
    const kept = new KeptLists({ ttlMs: 1000, maxChars: 1600 });
    const before = kept.generation('s');
    for (let i = 0; i <= 10_000; i++) kept.forget(`w${i}`);
    kept.keep('s', 'a', before, '1', 'A', 0);
    expect(kept.get('s', 'a', 1)).toBeUndefined();
    kept.keep('s', 'a', kept.generation('s'), '1', 'A', 0);
    expect(kept.get('s', 'a', 1)?.text).toBe('A');
  });

  it('keeps nothing where its time is 0', () => {
    const kept = new KeptLists({ ttlMs: 0, maxChars: 1600 });
    kept.keep('s', 'a', kept.generation('s'), '1', 'A', 0);
    expect(kept.get('s', 'a', 0)).toBeUndefined();
  });
});
