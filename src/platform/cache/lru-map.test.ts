import { describe, expect, it } from 'vitest';
import { LruMap } from './lru-map.js';

describe('LruMap', () => {
  it('keeps at most its capacity, forgetting the least recently used first', () => {
    const m = new LruMap<number>(2);
    m.set('a', 1);
    m.set('b', 2);
    expect(m.get('a')).toBe(1); // a used after b: b is now the least recent
    m.set('c', 3);
    expect(m.get('b')).toBeUndefined();
    expect([m.get('a'), m.get('c')]).toEqual([1, 3]);
    m.set('a', 4); // a replaced, not added: nothing forgotten
    expect([m.get('a'), m.get('c')]).toEqual([4, 3]);
  });
});
