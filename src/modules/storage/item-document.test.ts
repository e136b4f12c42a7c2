import { describe, expect, it } from 'vitest';
import { AppError } from '../../platform/errors/app-error.js';
import {
  buildDocument,
  exceedsDepth,
  normalizeRestriction,
  principalGrantees,
  restrictionGrantees,
} from './item-document.js';

const R = { roles: ['a'] };

describe('normalizeRestriction', () => {
  it.each([
    [{ user: 'u', roles: ['r'], organisations: ['o'], rights: ['x'] }, { user: 'u' }],
    [{ user: '', roles: ['r'] }, { roles: ['r'] }],
    [{ user: null, organisations: ['o', 'o'], rights: [] }, { organisations: ['o'] }],
    [{ roles: [], organisations: [] }, null],
    [{}, null],
    [undefined, null],
  ])('%j -> %j', (input, expected) => {
    expect(normalizeRestriction(input as any)).toEqual(expected);
  });
});

describe('exceedsDepth', () => {
  const nest = (n: number) => {
    let v: unknown = 1;
    for (let i = 0; i < n; i++) v = [v];
    return v;
  };
  it('counts containers, not scalars', () => {
    expect(exceedsDepth(1, 0)).toBe(false);
    expect(exceedsDepth(nest(64), 64)).toBe(false);
    expect(exceedsDepth(nest(65), 64)).toBe(true);
    expect(exceedsDepth({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(exceedsDepth({ a: [{ b: 1 }] }, 3)).toBe(false);
  });
  it('handles a million levels without recursion', () => {
    expect(exceedsDepth(nest(1_000_000), 64)).toBe(true);
  });
});

describe('buildDocument', () => {
  it('collects unknown root fields into customFields, drops server fields, sets defaults', () => {
    const doc = buildDocument('id-1', {
      id: 'x',
      value: 0,
      readRestriction: R,
      writeRestriction: R,
      extra: 1,
      createdOn: 'c',
      customFields: { extra: 2 },
    } as any);
    expect(doc).toEqual({
      id: 'id-1',
      value: 0,
      favorite: false,
      readRestriction: R,
      writeRestriction: R,
      customFields: { extra: 2 },
    });
  });
  it('answers 406 naming every missing field', () => {
    try {
      buildDocument('x', { readRestriction: {} } as any);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).statusCode).toBe(406);
      expect((err as AppError).body.properties).toEqual({ fields: ['value', 'readRestriction', 'writeRestriction'] });
    }
  });
});

describe('grantees', () => {
  it('maps restrictions and principals to the same keys', () => {
    expect(restrictionGrantees({ organisations: ['o'], roles: ['r'], rights: ['x'] })).toEqual([
      'org:o',
      'role:r',
      'right:x',
    ]);
    expect(restrictionGrantees({ user: 'u' })).toEqual(['user:u']);
    const p = {
      kind: 'apiKey',
      tenantId: 't',
      tenant: 't',
      loginName: 'u',
      organisations: ['o'],
      roles: ['r', 'r'],
      rights: ['x'],
    } as const;
    expect(
      principalGrantees({ ...p, organisations: [...p.organisations], roles: [...p.roles], rights: [...p.rights] }),
    ).toEqual(['user:u', 'org:o', 'role:r', 'right:x']);
  });
});
