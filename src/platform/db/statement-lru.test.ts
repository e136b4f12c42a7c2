import { describe, expect, it } from 'vitest';
import { StatementLru } from './statement-lru.js';

describe('StatementLru', () => {
  it('keeps up to its capacity and evicts the least recently used first', () => {
    const lru = new StatementLru(3);
    expect(lru.use('a')).toEqual({ hit: false });
    expect(lru.use('b')).toEqual({ hit: false });
    expect(lru.use('c')).toEqual({ hit: false });
    expect(lru.use('d')).toEqual({ hit: false, evicted: 'a' });
    expect(lru.list()).toEqual(['b', 'c', 'd']);
    expect(lru.size).toBe(3);
  });

  it('counts a use as recent: the entry used last is evicted last', () => {
    const lru = new StatementLru(3);
    for (const name of ['a', 'b', 'c']) lru.use(name);
    expect(lru.use('a')).toEqual({ hit: true });
    expect(lru.use('d')).toEqual({ hit: false, evicted: 'b' });
    expect(lru.use('e')).toEqual({ hit: false, evicted: 'c' });
    expect(lru.use('f')).toEqual({ hit: false, evicted: 'a' });
    expect(lru.list()).toEqual(['d', 'e', 'f']);
  });

  it('takes an evicted name back as a miss, evicting another', () => {
    const lru = new StatementLru(2);
    lru.use('a');
    lru.use('b');
    expect(lru.use('c')).toEqual({ hit: false, evicted: 'a' });
    expect(lru.has('a')).toBe(false);
    expect(lru.use('a')).toEqual({ hit: false, evicted: 'b' });
    expect(lru.list()).toEqual(['c', 'a']);
  });

  it('with capacity 1 keeps only the last name', () => {
    const lru = new StatementLru(1);
    expect(lru.use('a')).toEqual({ hit: false });
    expect(lru.use('a')).toEqual({ hit: true });
    expect(lru.use('b')).toEqual({ hit: false, evicted: 'a' });
    expect(lru.list()).toEqual(['b']);
  });

  it('forgets a name without counting an eviction, which frees its place', () => {
    const counts = { hits: 0, misses: 0, evictions: 0 };
    const lru = new StatementLru(2, counts);
    lru.use('a');
    lru.use('b');
    lru.forget('a');
    expect(lru.use('c')).toEqual({ hit: false });
    expect(lru.list()).toEqual(['b', 'c']);
    expect(counts).toEqual({ hits: 0, misses: 3, evictions: 0 });
  });

  it('counts hits, misses and evictions into the counts it is given (shared by connections)', () => {
    const counts = { hits: 0, misses: 0, evictions: 0 };
    const one = new StatementLru(2, counts);
    const two = new StatementLru(2, counts);
    for (const name of ['a', 'b', 'a', 'c', 'b']) one.use(name);
    two.use('a');
    two.use('a');
    // one: a miss, b miss, a hit, c miss (evicts b), b miss (evicts a); two: a miss, a hit.
    expect(counts).toEqual({ hits: 2, misses: 5, evictions: 2 });
  });

  it('refuses a capacity below 1', () => {
    expect(() => new StatementLru(0)).toThrow(RangeError);
    expect(() => new StatementLru(1.5)).toThrow(RangeError);
  });

  // A differential check against a model that keeps the order in an array: every answer and the kept names agree.
  it('agrees with a simple model over a long random sequence', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (const capacity of [1, 2, 5, 17]) {
      const lru = new StatementLru(capacity);
      let model: string[] = [];
      for (let i = 0; i < 2000; i++) {
        const name = `s${next() % (capacity * 3)}`;
        const hit = model.includes(name);
        model = model.filter((n) => n !== name);
        const evicted = !hit && model.length >= capacity ? model.shift() : undefined;
        model.push(name);
        expect(lru.use(name)).toEqual(evicted === undefined ? { hit } : { hit, evicted });
      }
      expect(lru.list()).toEqual(model);
    }
  });
});
