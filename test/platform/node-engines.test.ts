// `npm ci` warns (EBADENGINE) for a package whose `engines.node` the running Node does not meet: the README promises
// Node 20, so every package of the lock must accept the lowest Node that package.json's `engines` admits.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const json = (name: string) => JSON.parse(readFileSync(join(ROOT, name), 'utf8'));

type Version = [number, number, number];
const parse = (v: string): Version => {
  const [a = 0, b = 0, c = 0] = v
    .replace(/^v/, '')
    .split('.')
    .map((p) => (p === 'x' || p === '*' ? 0 : Number(p)));
  return [a, b, c];
};
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `v` meets one comparator of an npm range (the forms the lock holds; anything else throws). */
function meets(v: Version, comparator: string): boolean {
  const m = /^(>=|<=|>|<|\^|~|=)?\s*v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(comparator);
  if (comparator === '*' || comparator === '') return true;
  if (!m) throw new Error(`cannot read the engines comparator "${comparator}"`);
  const [, op = '', major, minor, patch] = m;
  const bound = parse(`${major}.${minor ?? 0}.${patch ?? 0}`);
  const c = compare(v, bound);
  const wild =
    minor === undefined || minor === 'x' || minor === '*'
      ? 1
      : patch === undefined || patch === 'x' || patch === '*'
        ? 2
        : 3;
  switch (op) {
    case '>=':
      return c >= 0;
    case '>':
      return c > 0;
    case '<=':
      return c <= 0;
    case '<':
      return c < 0;
    case '^':
      return c >= 0 && (bound[0] > 0 ? v[0] === bound[0] : v[0] === 0 && v[1] === bound[1]);
    case '~':
      return c >= 0 && v[0] === bound[0] && (wild === 1 || v[1] === bound[1]);
    default:
      // A bare version: 20, 20.x, 14.17.0 — the parts given must match.
      return v.slice(0, wild).every((part, i) => part === bound[i]);
  }
}

/** Whether `v` satisfies an npm range: alternatives by `||`, each a space-separated conjunction of comparators. */
function satisfies(v: Version, range: string): boolean {
  return range.split('||').some((alt) =>
    alt
      .trim()
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
      .split(/\s+/)
      .every((comparator) => meets(v, comparator)),
  );
}

describe('Node engines', () => {
  const floor = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(json('package.json').engines.node)?.[1];

  it('package.json states its lowest Node as >=X.Y', () => {
    expect(floor).toBeDefined();
  });

  it('every package of the lock accepts that Node (npm ci prints no EBADENGINE)', () => {
    const lowest = parse(floor!);
    const refused = Object.entries(
      json('package-lock.json').packages as Record<string, { engines?: { node?: string } }>,
    )
      .filter(([name, p]) => name && p.engines?.node && !satisfies(lowest, p.engines.node))
      .map(([name, p]) => `${name.replace(/^.*node_modules\//, '')} wants node ${p.engines!.node}`);
    expect(refused).toEqual([]);
  });

  it('reads ranges as npm does', () => {
    const v = parse('20.19.0');
    expect(satisfies(v, '>=22')).toBe(false);
    expect(satisfies(v, '>=18')).toBe(true);
    expect(satisfies(v, '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies(parse('20.18.0'), '^20.19.0 || >=22.12.0')).toBe(false);
    expect(satisfies(v, '20 || >=22')).toBe(true);
    expect(satisfies(v, '20.x || 22.x')).toBe(true);
    expect(satisfies(v, '18 || >=22')).toBe(false);
    expect(satisfies(v, '>=16 || 14 >=14.17')).toBe(true);
    expect(satisfies(parse('14.16.0'), '>=16 || 14 >=14.17')).toBe(false);
    expect(satisfies(v, '>= 14.6')).toBe(true);
    expect(satisfies(v, '^10 || ^12 || >=14')).toBe(true);
    expect(satisfies(v, '^8.16.0 || ^10.6.0')).toBe(false);
  });
});
