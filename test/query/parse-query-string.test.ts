import { describe, expect, it } from 'vitest';
import { parseQueryString } from '../../src/platform/query/parse-query-string.js';
import { UTC, type Zone } from '../../src/platform/query/timezone.js';
import { QUERY_LIMITS } from '../../src/platform/query/limits.js';
import type { QueryNode } from '../../src/platform/query/query-ast.js';

// The LIKE pattern of a bare term (its index search is tested below).
const text = (pattern: string): QueryNode => expect.objectContaining({ type: 'text', pattern }) as unknown as QueryNode;
const ci = (property: string, value: string, ...more: any[]): QueryNode => ({
  type: 'predicate',
  property,
  tests: [{ kind: 'stringCi', value }, ...more],
});
const num = (value: number) => ({ kind: 'number', conds: [{ op: '=', value }] });

describe('parseQueryString: syntax', () => {
  it.each<[string, QueryNode]>([
    ['', { type: 'all' }],
    ['   ', { type: 'all' }],
    ['name:foo', ci('name', 'foo')],
    ['value.status:Open', ci('value.status', 'Open')],
    ['name:"a phrase"', ci('name', 'a phrase')],
    ['name:"say \\"hi\\""', ci('name', 'say "hi"')],
    ['count:5', ci('count', '5', num(5))],
    ['flag:true', ci('flag', 'true', { kind: 'boolean', value: true })],
    ['attributes.ns\\:key:v', ci('attributes.ns:key', 'v')],
    ['name:a\\ b', ci('name', 'a b')],
    ['name:fo*', { type: 'predicate', property: 'name', tests: [{ kind: 'like', pattern: 'fo%' }] }],
    ['name:f?o', { type: 'predicate', property: 'name', tests: [{ kind: 'like', pattern: 'f_o' }] }],
    ['name:f\\*o', ci('name', 'f*o')],
    ['name:*', { type: 'predicate', property: 'name', tests: [{ kind: 'present' }] }],
    ['foo', text('%foo%')],
    ['fo*o', text('%fo%o%')],
    ['"a phrase"', text('%a phrase%')],
    ['"50%_off*"', text('%50\\%\\_off*%')],
    ['"say \\"hi\\""', text('%say \\\\"hi\\\\"%')], // searched as it appears in JSON text: say \"hi\"
    ['"😀 ü"', text('%😀 ü%')],
    ['a AND b', { type: 'and', items: [text('%a%'), text('%b%')] }],
    ['a && b', { type: 'and', items: [text('%a%'), text('%b%')] }],
    ['a OR b', { type: 'or', items: [text('%a%'), text('%b%')] }],
    ['a || b', { type: 'or', items: [text('%a%'), text('%b%')] }],
    ['a b', { type: 'or', items: [text('%a%'), text('%b%')] }],
    ['a AND b OR c', { type: 'or', items: [{ type: 'and', items: [text('%a%'), text('%b%')] }, text('%c%')] }],
    ['a OR b AND c', { type: 'or', items: [text('%a%'), { type: 'and', items: [text('%b%'), text('%c%')] }] }],
    ['(a OR b) AND c', { type: 'and', items: [{ type: 'or', items: [text('%a%'), text('%b%')] }, text('%c%')] }],
    ['NOT a', { type: 'not', item: text('%a%') }],
    ['!a', { type: 'not', item: text('%a%') }],
    ['-a', { type: 'not', item: text('%a%') }],
    ['a AND NOT b', { type: 'and', items: [text('%a%'), { type: 'not', item: text('%b%') }] }],
    ['a NOT b', { type: 'and', items: [text('%a%'), { type: 'not', item: text('%b%') }] }],
    ['a OR NOT b', { type: 'or', items: [text('%a%'), { type: 'not', item: text('%b%') }] }],
    ['a  OR   NOT b', { type: 'or', items: [text('%a%'), { type: 'not', item: text('%b%') }] }],
    ['NOT (a OR b)', { type: 'not', item: { type: 'or', items: [text('%a%'), text('%b%')] } }],
    ['+a b', text('%a%')],
    ['+a +b c', { type: 'and', items: [text('%a%'), text('%b%')] }],
    [
      'a b -c',
      {
        type: 'and',
        items: [
          { type: 'not', item: text('%c%') },
          { type: 'or', items: [text('%a%'), text('%b%')] },
        ],
      },
    ],
    ['-status:closed', { type: 'not', item: ci('status', 'closed') }],
    ['a -status:closed', { type: 'and', items: [{ type: 'not', item: ci('status', 'closed') }, text('%a%')] }],
    ['+status:open a', ci('status', 'open')],
    [
      '-n:[1 TO 2}',
      {
        type: 'not',
        item: {
          type: 'predicate',
          property: 'n',
          tests: [
            {
              kind: 'number',
              conds: [
                { op: '>=', value: 1 },
                { op: '<', value: 2 },
              ],
            },
            {
              kind: 'string',
              conds: [
                { op: '>=', value: '1' },
                { op: '<', value: '2' },
              ],
            },
          ],
        },
      },
    ],
    ['-(a OR b)', { type: 'not', item: { type: 'or', items: [text('%a%'), text('%b%')] } }],
    [
      'c -(a b)',
      { type: 'and', items: [text('%c%'), { type: 'not', item: { type: 'or', items: [text('%a%'), text('%b%')] } }] },
    ],
    ['name:\\-x', ci('name', '-x')],
    ['name:(a OR b)', { type: 'or', items: [ci('name', 'a'), ci('name', 'b')] }],
    ['name:foo^2', ci('name', 'foo')],
    [
      'n:[1 TO 5]',
      {
        type: 'predicate',
        property: 'n',
        tests: [
          {
            kind: 'number',
            conds: [
              { op: '>=', value: 1 },
              { op: '<=', value: 5 },
            ],
          },
          {
            kind: 'string',
            conds: [
              { op: '>=', value: '1' },
              { op: '<=', value: '5' },
            ],
          },
        ],
      },
    ],
    [
      's:{a TO m}',
      {
        type: 'predicate',
        property: 's',
        tests: [
          {
            kind: 'string',
            conds: [
              { op: '>', value: 'a' },
              { op: '<', value: 'm' },
            ],
          },
        ],
      },
    ],
    [
      's:[a TO m}',
      {
        type: 'predicate',
        property: 's',
        tests: [
          {
            kind: 'string',
            conds: [
              { op: '>=', value: 'a' },
              { op: '<', value: 'm' },
            ],
          },
        ],
      },
    ],
    [
      's:{a TO m]',
      {
        type: 'predicate',
        property: 's',
        tests: [
          {
            kind: 'string',
            conds: [
              { op: '>', value: 'a' },
              { op: '<=', value: 'm' },
            ],
          },
        ],
      },
    ],
    [
      's:[a TO *]',
      { type: 'predicate', property: 's', tests: [{ kind: 'string', conds: [{ op: '>=', value: 'a' }] }] },
    ],
    ['s:[* TO *]', { type: 'predicate', property: 's', tests: [{ kind: 'present' }] }],
    [
      'n:>5',
      {
        type: 'predicate',
        property: 'n',
        tests: [
          { kind: 'number', conds: [{ op: '>', value: 5 }] },
          { kind: 'string', conds: [{ op: '>', value: '5' }] },
        ],
      },
    ],
    [
      'n:>=5',
      {
        type: 'predicate',
        property: 'n',
        tests: [
          { kind: 'number', conds: [{ op: '>=', value: 5 }] },
          { kind: 'string', conds: [{ op: '>=', value: '5' }] },
        ],
      },
    ],
    [
      'n:<-1.5',
      {
        type: 'predicate',
        property: 'n',
        tests: [
          { kind: 'number', conds: [{ op: '<', value: -1.5 }] },
          { kind: 'string', conds: [{ op: '<', value: '-1.5' }] },
        ],
      },
    ],
    ['n:<=x', { type: 'predicate', property: 'n', tests: [{ kind: 'string', conds: [{ op: '<=', value: 'x' }] }] }],
    [
      'd:>2026-03-29',
      {
        type: 'predicate',
        property: 'd',
        tests: [{ kind: 'instant', conds: [{ op: '>', value: Date.parse('2026-03-29T00:00:00Z') }] }],
      },
    ],
    [
      'd:>"2026-03-29T02:30:00+02:00"',
      {
        type: 'predicate',
        property: 'd',
        tests: [{ kind: 'instant', conds: [{ op: '>', value: Date.parse('2026-03-29T00:30:00Z') }] }],
      },
    ],
    [
      'd:<2026-03-29T02\\:30',
      {
        type: 'predicate',
        property: 'd',
        tests: [{ kind: 'instant', conds: [{ op: '<', value: Date.parse('2026-03-29T02:30:00Z') }] }],
      },
    ],
    [
      'd:[2026-03-01 TO 2026-03-29T02:30]',
      {
        type: 'predicate',
        property: 'd',
        tests: [
          {
            kind: 'instant',
            conds: [
              { op: '>=', value: Date.parse('2026-03-01T00:00:00Z') },
              { op: '<=', value: Date.parse('2026-03-29T02:30:00Z') },
            ],
          },
        ],
      },
    ],
  ])('%j', (query, expected) => {
    expect(parseQueryString(query, UTC)).toEqual(expected);
  });

  it('reads dates without zone in the given zone', () => {
    const berlin: Zone = { kind: 'iana', name: 'Europe/Berlin' };
    expect(parseQueryString('d:[2026-03-29T02:30 TO 2026-10-25T02:30]', berlin)).toEqual({
      type: 'predicate',
      property: 'd',
      tests: [
        {
          kind: 'instant',
          conds: [
            { op: '>=', value: Date.parse('2026-03-29T01:30:00Z') },
            { op: '<=', value: Date.parse('2026-10-25T00:30:00Z') },
          ],
        },
      ],
    });
  });

  it('a date term also matches datetime columns over the whole day', () => {
    expect(parseQueryString('d:2026-03-29', UTC)).toEqual(
      ci('d', '2026-03-29', {
        kind: 'instant',
        conds: [
          { op: '>=', value: Date.parse('2026-03-29T00:00:00Z') },
          { op: '<', value: Date.parse('2026-03-30T00:00:00Z') },
        ],
        columnsOnly: true,
      }),
    );
  });

  it('keeps SQL-looking text as plain search terms', () => {
    expect(parseQueryString('name:"\'; DROP TABLE items; --"', UTC)).toEqual(ci('name', "'; DROP TABLE items; --"));
    expect(parseQueryString("'; DROP TABLE x", UTC)).toEqual({
      type: 'or',
      items: [text("%';%"), text('%DROP%'), text('%TABLE%'), text('%x%')],
    });
  });
});

describe('parseQueryString: errors are 400', () => {
  it.each([
    ['(a', 'not closed'],
    ['a)', 'unexpected )'],
    ['"open', 'phrase'],
    ['a:', 'needs a value'],
    ['a: b', 'needs a value'],
    [':a', 'field name'],
    ['a:b:c', 'escape'],
    ['AND a', 'before'],
    ['a AND', 'after'],
    ['a AND OR b', 'after'],
    ['a OR', 'after'],
    ['NOT', 'after'],
    ['(a AND) b', 'after'],
    ['n:[1 TO 5', 'not closed'],
    ['n:[1 5]', 'range reads'],
    ['n:[1 TO [2 TO 3]]', 'brackets'],
    ['n:1 TO 5]', 'unexpected ]'],
    ['n:/ab+c/', 'regular expressions'],
    ['foo~', 'fuzzy'],
    ['"a b"~2', 'fuzzy'],
    ['a^', 'boost'],
    ['^2', 'boost'],
    ['a^1.5', 'boost'],
    ['+(a b)', 'not supported'],
    ['[1 TO 2]', 'range needs a field'],
    ['>5', 'comparison needs a field'],
    ['n:>', 'needs a value'],
    ['a\\', 'backslash'],
    ['d:>2026-02-30', 'not a valid date'],
    ['a"b:c', 'phrase'],
    ['(((((a)))))', 'nest at most'],
    ['x'.repeat(QUERY_LIMITS.queryLength + 1), 'limited to'],
    [
      Array(QUERY_LIMITS.queryTokens + 1)
        .fill('a')
        .join(' '),
      'terms and operators',
    ],
    [`name:${'x'.repeat(QUERY_LIMITS.valueLength + 1)}`, 'limited to'],
    [`name:${'*a'.repeat(QUERY_LIMITS.wildcards + 1)}`, 'wildcards'],
    ['a"b".c:d', ''],
    ['na"me:x', 'phrase'],
    ['a:b) OR (c', 'unexpected )'],
    ['a OR (b:c d:e:f)', 'escape'],
    ['a:[1 TO 2]x:y', 'escape'],
    ['a..b:x', 'dotted path'],
  ])('%j (%s)', (query, message) => {
    try {
      parseQueryString(query, UTC);
      expect.unreachable();
    } catch (err: any) {
      expect(err.statusCode).toBe(400);
      expect(err.body.message).toContain(message);
    }
  });
});

describe('parseQueryString: pathological input stays fast', () => {
  // The parser alone needed seconds for some of these; the guard answers in well under a millisecond. The bound is
  // relative, so that a busy machine does not fail it: the quickest of three runs must stay within 250 ms or 20 times
  // the quickest of three parses of a plain valid query (63 terms and operators, about 2,000 characters), whichever is
  // larger.
  const quickest = (run: () => void) => {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      run();
      best = Math.min(best, performance.now() - started);
    }
    return best;
  };
  const plain = `${`a:${'x'.repeat(60)} OR `.repeat(31)}z`;
  const bound = () => Math.max(250, 20 * quickest(() => parseQueryString(plain, UTC)));
  const cases = [
    `${'('.repeat(2000)}a${')'.repeat(2000)}`,
    '('.repeat(4000),
    '(a OR (b AND -c:"x") '.repeat(150),
    `${'b '.repeat(40)}(a OR (a OR (a OR (a OR x:)))) `,
    `${'b AND '.repeat(20)}(a OR (a OR (a OR (a OR x:[a TO b c])))) `,
    `${'b AND '.repeat(20)}(a OR (a OR (a OR (a OR "x"~)))) `,
    '*?'.repeat(2000),
    '\\'.repeat(4096),
    '"'.repeat(4095),
    'a:b:'.repeat(1000),
    `${'b '.repeat(30)}(a OR (a OR (a OR (a OR x)))) AND`,
  ];
  it.each(cases.map((q) => [q.slice(0, 40), q]))('%j...', (_label, query) => {
    expect(() => parseQueryString(query, UTC)).toThrow(expect.objectContaining({ statusCode: 400 }));
    const took = quickest(() => {
      try {
        parseQueryString(query, UTC);
      } catch {
        // refused, as checked above
      }
    });
    expect(took).toBeLessThan(bound());
  });

  it('a valid query at the limits parses quickly', () => {
    const query = `${'(a:x OR (b:[1 TO 2] AND -c:"p q")) AND '.repeat(9)}z`;
    expect(parseQueryString(query, UTC).type).toBe('and');
    expect(quickest(() => parseQueryString(query, UTC))).toBeLessThan(bound());
  });
});

describe('parseQueryString: bare terms as the full-text index searches them', () => {
  const searchOf = (q: string) => (parseQueryString(q, UTC) as any).search;
  it.each<[string, unknown]>([
    ['Invoice', { kind: 'words', words: ['invoice'], phrase: false }],
    ['Éclair', { kind: 'words', words: ['eclair'], phrase: false }],
    ['e-mail', { kind: 'words', words: ['e', 'mail'], phrase: false }],
    ['"Hello  World"', { kind: 'words', words: ['hello', 'world'], phrase: true }],
    ['"one"', { kind: 'words', words: ['one'], phrase: false }],
    ['!!!', undefined],
    ['inv*', { kind: 'prefix', prefix: 'inv' }],
    ['Ü*', { kind: 'prefix', prefix: 'u' }],
    ['in?oice', { kind: 'like', pattern: 'in_oice' }],
    ['*voice', { kind: 'like', pattern: '%voice' }],
    ['in\\*voice', { kind: 'words', words: ['in', 'voice'], phrase: false }],
  ])('%s', (q, expected) => {
    if (expected === undefined) expect(searchOf(`"${q}"`)).toEqual({ kind: 'words', words: [], phrase: false });
    else expect(searchOf(q)).toEqual(expected);
  });
});
