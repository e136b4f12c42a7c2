// The bound of a pattern's program (checked before compiling) must never be below what RE2 compiles it to, or a
// pattern could pass the budget and still take long to compile; and the patterns match whole groups.
import { describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import { newRequestBudget } from '../method.js';
import { GroupPatterns, programBound } from './group-patterns.js';

const TOKENS = [
  'a',
  'b',
  'ä',
  '.',
  '\\d',
  '\\pL',
  '\\p{Greek}',
  '[a-z]',
  '[^]x]',
  '[[:alpha:]\\]]',
  '\\Qa{9}\\E',
  '(',
  '(?:',
  '(?i)',
  '(?P<n>',
  ')',
  '|',
  '*',
  '+',
  '?',
  '{3}',
  '{2,}',
  '{0,7}',
  '{12}',
  '^',
  '$',
  '\\b',
  '{',
  '}',
];

/** A pseudo-random pattern of up to `n` tokens (deterministic: the same seed, the same patterns). */
function randomPattern(seed: number, n: number): string {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x;
  };
  let out = '';
  for (let i = next() % n; i >= 0; i--) out += TOKENS[next() % TOKENS.length];
  return out;
}

describe('programBound', () => {
  it('is at least the size of the compiled program, for every pattern that compiles (5,000 random ones)', () => {
    let compiled = 0;
    for (let seed = 1; seed <= 5000; seed++) {
      const p = randomPattern(seed, 14);
      let size: number;
      try {
        size = RE2JS.compile(p).programSize();
      } catch {
        continue;
      }
      compiled++;
      expect(programBound(p), p).toBeGreaterThanOrEqual(size);
    }
    expect(compiled).toBeGreaterThan(500);
  });

  it.each([
    'x{1000}',
    '(?:(?:x{10}){10}){10}',
    '(a{0,100}|b{0,100}){5}',
    '[\\p{L}]{100}\\d{100}',
    '(?i)\\Qabc\\E{50}',
    'a{2,}{3}',
  ])('bounds %s from above', (p) => {
    let size = 0;
    try {
      size = RE2JS.compile(p).programSize();
    } catch {
      // invalid in RE2: any bound will do
    }
    expect(programBound(p)).toBeGreaterThanOrEqual(size);
  });
});

describe('GroupPatterns', () => {
  it('matches whole groups, case-sensitively, with JavaScript escapes translated', async () => {
    const g = GroupPatterns.compile(['Site', 'in.*', '\\u00e4+'], 'query', newRequestBudget())!;
    expect(await g.matches('Site')).toBe(true);
    expect(await g.matches('Sites')).toBe(false);
    expect(await g.matches('site')).toBe(false);
    expect(await g.matches('internal')).toBe(true);
    expect(await g.matches('äää')).toBe(true);
    expect(GroupPatterns.compile([], 'query', newRequestBudget())).toBeUndefined();
  });
});
