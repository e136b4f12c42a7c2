import { describe, expect, it } from 'vitest';
import { filterToNode, parseFilter } from '../../src/platform/query/parse-filter.js';
import { UTC, type Zone } from '../../src/platform/query/timezone.js';
import { QUERY_LIMITS } from '../../src/platform/query/limits.js';

const one = (c: Record<string, unknown>) => parseFilter([c as any])[0];
const statusOf = (fn: () => unknown): number => {
  try {
    fn();
  } catch (err: any) {
    return err.statusCode;
  }
  return 0;
};

describe('parseFilter: operators and aliases', () => {
  it.each([
    ['eq', 'eq'],
    ['=', 'eq'],
    ['EQ', 'eq'],
    ['ne', 'ne'],
    ['!=', 'ne'],
    ['gt', 'gt'],
    ['>', 'gt'],
    ['gte', 'gte'],
    ['>=', 'gte'],
    ['lt', 'lt'],
    ['<', 'lt'],
    ['lte', 'lte'],
    ['<=', 'lte'],
    ['like', 'like'],
  ])('%s -> %s', (operator, expected) => {
    expect(one({ property: 'value.n', operator, value: '5' })).toEqual({
      property: 'value.n',
      operator: expected,
      value: '5',
      invert: false,
    });
  });

  it('in takes an array, exists a boolean, invert and source "raw" are kept', () => {
    expect(one({ property: 'a', operator: 'in', value: ['x', 2, true] })).toEqual({
      property: 'a',
      operator: 'in',
      value: ['x', 2, true],
      invert: false,
    });
    expect(one({ property: 'a', operator: 'exists', value: false, invert: true, source: 'raw' })).toEqual({
      property: 'a',
      operator: 'exists',
      value: false,
      invert: true,
    });
    expect(one({ property: 'a', operator: 'eq', value: null })).toMatchObject({ value: null });
  });

  it('reads the JSON string form; empty means no conditions', () => {
    expect(parseFilter('[{"property":"name","operator":"=","value":"x"}]')).toEqual([
      { property: 'name', operator: 'eq', value: 'x', invert: false },
    ]);
    expect(parseFilter('')).toEqual([]);
    expect(parseFilter(undefined)).toEqual([]);
    expect(parseFilter('[]')).toEqual([]);
  });
});

describe('parseFilter: errors', () => {
  const long = 'x'.repeat(QUERY_LIMITS.valueLength + 1);
  it.each([
    ['unparsable JSON', '[{"property":', 500],
    ['not JSON at all', "'; DROP TABLE x", 500],
    ['not an array', '{"property":"a","operator":"eq","value":1}', 400],
    ['null', 'null', 400],
    ['condition not an object', '[1]', 400],
    ['condition an array', '[[]]', 400],
    ['unknown operator', [{ property: 'a', operator: 'regex', value: 'x' }], 400],
    ['an object built-in as the operator', [{ property: 'a', operator: 'constructor', value: 'x' }], 400],
    ['the prototype as the operator', [{ property: 'a', operator: '__proto__', value: 'x' }], 400],
    ['operator not a string', [{ property: 'a', operator: 1, value: 'x' }], 400],
    ['unknown source', [{ property: 'a', operator: 'eq', value: 'x', source: 'sql' }], 400],
    ['property not a string', [{ property: 5, operator: 'eq', value: 'x' }], 400],
    ['property missing', [{ operator: 'eq', value: 'x' }], 400],
    ['property empty segment', [{ property: 'a..b', operator: 'eq', value: 'x' }], 400],
    ['property with a quote', [{ property: 'a"b', operator: 'eq', value: 'x' }], 400],
    ['property with a control character', [{ property: 'a\u0000b', operator: 'eq', value: 'x' }], 400],
    ['property too long', [{ property: 'a'.repeat(300), operator: 'eq', value: 'x' }], 400],
    ['in without an array', [{ property: 'a', operator: 'in', value: 'x' }], 400],
    ['in with an object', [{ property: 'a', operator: 'in', value: [{}] }], 400],
    ['in too long', [{ property: 'a', operator: 'in', value: Array(QUERY_LIMITS.inValues + 1).fill(1) }], 400],
    [
      'in values too many in all',
      Array(3).fill({ property: 'a', operator: 'in', value: Array(Math.ceil(QUERY_LIMITS.inValues / 2)).fill(1) }),
      400,
    ],
    ['exists without a boolean', [{ property: 'a', operator: 'exists', value: 'true' }], 400],
    ['exists without value', [{ property: 'a', operator: 'exists' }], 400],
    ['like with a number', [{ property: 'a', operator: 'like', value: 5 }], 400],
    ['gt with a boolean', [{ property: 'a', operator: 'gt', value: true }], 400],
    ['eq with an object', [{ property: 'a', operator: 'eq', value: { $ne: 1 } }], 400],
    ['eq without value', [{ property: 'a', operator: 'eq' }], 400],
    ['invert not a boolean', [{ property: 'a', operator: 'eq', value: 1, invert: 'yes' }], 400],
    ['over-long value', [{ property: 'a', operator: 'eq', value: long }], 400],
    [
      'too many conditions',
      Array(QUERY_LIMITS.filterConditions + 1).fill({ property: 'a', operator: 'exists', value: true }),
      400,
    ],
    ['too long a string', `[${' '.repeat(QUERY_LIMITS.filterLength)}]`, 400],
  ])('%s: %d', (_name, input, status) => {
    expect(statusOf(() => parseFilter(input as any))).toBe(status);
  });

  it('answers the error object with the path of the bad condition', () => {
    try {
      parseFilter([
        { property: 'a', operator: 'eq', value: 1 },
        { property: 'b', operator: 'nope', value: 1 },
      ]);
      expect.unreachable();
    } catch (err: any) {
      expect(err.body).toMatchObject({
        messageKey: 'CORE_ERROR_VALIDATION_FAILED',
        properties: { errors: [{ path: 'filter/1/operator' }] },
      });
    }
  });

  it('survives deeply nested JSON without blowing the stack', () => {
    expect(statusOf(() => parseFilter('['.repeat(30_000) + ']'.repeat(30_000)))).toBe(400);
  });
});

describe('filterToNode', () => {
  const node = (c: Record<string, unknown>, zone: Zone = UTC) => filterToNode(parseFilter([c as any]), zone);
  const berlin: Zone = { kind: 'iana', name: 'Europe/Berlin' };

  it.each([
    [
      'eq number',
      { property: 'n', operator: 'eq', value: 5 },
      { type: 'predicate', property: 'n', tests: [{ kind: 'number', conds: [{ op: '=', value: 5 }] }] },
    ],
    [
      'eq boolean',
      { property: 'b', operator: 'eq', value: true },
      { type: 'predicate', property: 'b', tests: [{ kind: 'boolean', value: true }] },
    ],
    [
      'eq string',
      { property: 's', operator: 'eq', value: 'x' },
      { type: 'predicate', property: 's', tests: [{ kind: 'string', conds: [{ op: '=', value: 'x' }] }] },
    ],
    [
      'eq numeric string',
      { property: 's', operator: 'eq', value: '5' },
      {
        type: 'predicate',
        property: 's',
        tests: [
          { kind: 'string', conds: [{ op: '=', value: '5' }] },
          { kind: 'number', conds: [{ op: '=', value: 5 }] },
        ],
      },
    ],
    [
      'eq null',
      { property: 's', operator: 'eq', value: null },
      { type: 'not', item: { type: 'predicate', property: 's', tests: [{ kind: 'present' }] } },
    ],
    [
      'ne',
      { property: 'n', operator: '!=', value: 5 },
      {
        type: 'not',
        item: { type: 'predicate', property: 'n', tests: [{ kind: 'number', conds: [{ op: '=', value: 5 }] }] },
      },
    ],
    [
      'gt number',
      { property: 'n', operator: '>', value: 5 },
      { type: 'predicate', property: 'n', tests: [{ kind: 'number', conds: [{ op: '>', value: 5 }] }] },
    ],
    [
      'lte string',
      { property: 's', operator: 'lte', value: 'm' },
      { type: 'predicate', property: 's', tests: [{ kind: 'string', conds: [{ op: '<=', value: 'm' }] }] },
    ],
    [
      'like',
      { property: 's', operator: 'like', value: 'a*b?%_\\' },
      { type: 'predicate', property: 's', tests: [{ kind: 'like', pattern: 'a%b_\\%\\_\\\\' }] },
    ],
    [
      'in',
      { property: 'n', operator: 'in', value: [1, 'x'] },
      {
        type: 'predicate',
        property: 'n',
        tests: [
          { kind: 'number', conds: [{ op: '=', value: 1 }] },
          { kind: 'string', conds: [{ op: '=', value: 'x' }] },
        ],
      },
    ],
    ['in empty', { property: 'n', operator: 'in', value: [] }, { type: 'none' }],
    [
      'exists',
      { property: 'n', operator: 'exists', value: true },
      { type: 'predicate', property: 'n', tests: [{ kind: 'present' }] },
    ],
    [
      'exists false',
      { property: 'n', operator: 'exists', value: false },
      { type: 'not', item: { type: 'predicate', property: 'n', tests: [{ kind: 'present' }] } },
    ],
    [
      'invert',
      { property: 'n', operator: 'gt', value: 5, invert: true },
      {
        type: 'not',
        item: { type: 'predicate', property: 'n', tests: [{ kind: 'number', conds: [{ op: '>', value: 5 }] }] },
      },
    ],
    [
      'invert of ne',
      { property: 'n', operator: 'ne', value: 5, invert: true },
      { type: 'predicate', property: 'n', tests: [{ kind: 'number', conds: [{ op: '=', value: 5 }] }] },
    ],
  ])('%s', (_name, condition, expected) => {
    expect(node(condition)).toEqual(expected);
  });

  it('a date with a range operator is an instant read in the zone', () => {
    expect(node({ property: 'd', operator: 'gte', value: '2026-03-29T02:30' }, berlin)).toEqual({
      type: 'predicate',
      property: 'd',
      tests: [{ kind: 'instant', conds: [{ op: '>=', value: Date.parse('2026-03-29T01:30:00Z') }] }],
    });
    expect(
      node({ property: 'd', operator: 'lt', value: '2026-10-25' }, { kind: 'fixed', offsetMinutes: 120 }),
    ).toMatchObject({
      tests: [{ kind: 'instant', conds: [{ op: '<', value: Date.parse('2026-10-24T22:00:00Z') }] }],
    });
  });

  it('an invalid date with a range operator is a 400', () => {
    expect(statusOf(() => node({ property: 'd', operator: 'gt', value: '2026-02-30' }))).toBe(400);
  });

  it('too many wildcards is a 400; runs of * count once', () => {
    expect(statusOf(() => node({ property: 's', operator: 'like', value: '*?'.repeat(20) }))).toBe(400);
    expect(node({ property: 's', operator: 'like', value: `${'*'.repeat(500)}a` })).toMatchObject({
      tests: [{ kind: 'like', pattern: '%a' }],
    });
  });

  it('several conditions are ANDed', () => {
    expect(
      filterToNode(
        parseFilter([
          { property: 'a', operator: 'exists', value: true },
          { property: 'b', operator: 'exists', value: true },
        ]),
        UTC,
      ),
    ).toEqual({
      type: 'and',
      items: [
        { type: 'predicate', property: 'a', tests: [{ kind: 'present' }] },
        { type: 'predicate', property: 'b', tests: [{ kind: 'present' }] },
      ],
    });
  });
});
