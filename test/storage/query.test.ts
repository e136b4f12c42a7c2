// query, filter and sort through the list endpoint: the platform compiler on the storage fields, with the
// caller's restrictions applied in the same SQL (a hidden item that matches everything never shows).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { apiKeyCaller, client, expectErrorObject, OWNER_KEY, STORAGE_CONFIG } from './storage-kit.js';

const OPEN = { readRestriction: { roles: ['OWNER', 'roleA'] }, writeRestriction: { roles: ['OWNER'] } };
const HIDDEN = { readRestriction: { roles: ['OWNER'] }, writeRestriction: { roles: ['OWNER'] } };

// EU summer time 2026 starts 29 March 01:00 UTC and ends 25 October 01:00 UTC.
const ITEMS: Array<[string, Record<string, unknown>]> = [
  [
    'a',
    {
      name: 'Alpha report',
      moduleId: 'crm',
      value: { status: 'open', n: 1, when: '2026-03-29T00:30:00Z', tags: ['x', 'y'] },
      customFields: { prio: 'high' },
    },
  ],
  [
    'b',
    {
      name: 'beta Notes',
      moduleId: 'crm',
      value: { status: 'closed', n: 5, when: '2026-03-29T01:30:00Z', tags: ['y'] },
      favorite: true,
    },
  ],
  [
    'c',
    {
      name: 'gamma',
      moduleId: 'hr',
      value: { status: 'open', n: 3, when: '2026-03-29T22:30:00Z', text: 'Hello World' },
    },
  ],
  [
    'd',
    {
      name: 'delta report',
      moduleId: 'hr',
      value: { status: 'pending', n: 10, when: '2026-03-28T23:30:00Z' },
      customFields: { prio: 'low' },
    },
  ],
  ['e', { name: 'epsilon', value: { status: 'OPEN', n: 2.5, when: '2026-10-24T22:30:00Z' } }],
  ['f', { name: 'zeta', value: { status: 'closed', when: '2026-10-25T23:30:00Z', n: '7' } }],
  ['g', { name: 'eta', value: 'plain text value' }],
  // 23:30 CET on 25 October: inside the 25-hour Berlin day, outside a naive "start + 24 h".
  ['h', { name: 'theta', value: { status: 'done', when: '2026-10-25T22:30:00Z' } }],
];
const ALL = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

describeEachEngine('storage list query, filter and sort', (engine) => {
  let t: TestApp;
  let kim: ReturnType<typeof client>;
  let owner: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
    kim = client(t, apiKeyCaller('kim', 'k-kim-0123456789'));
    for (const [id, fields] of ITEMS) {
      const res = await owner.put('q', id, { ...OPEN, ...fields });
      if (res.statusCode !== 200) throw new Error(res.body);
      // A hidden twin that matches whatever its visible sibling matches.
      await owner.put('q', `hidden-${id}`, { ...HIDDEN, ...fields });
    }
  });
  afterAll(() => t.close());

  const ids = async (params: Record<string, string | number>) => {
    const res = await kim.list('q', params);
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
    const body = res.json();
    const list = body.items.map((i: any) => i.id);
    expect(body.total).toBe(list.length);
    return list;
  };
  const filter = (...conds: unknown[]) => ({ filter: JSON.stringify(conds) });

  it.each([
    ['eq', [{ property: 'value.status', operator: 'eq', value: 'open' }], ['a', 'c']],
    ['=', [{ property: 'value.status', operator: '=', value: 'open' }], ['a', 'c']],
    ['ne', [{ property: 'value.status', operator: 'ne', value: 'open' }], ['b', 'd', 'e', 'f', 'g', 'h']],
    ['gt number', [{ property: 'value.n', operator: 'gt', value: 2.5 }], ['b', 'c', 'd']],
    ['>= number', [{ property: 'value.n', operator: '>=', value: 2.5 }], ['b', 'c', 'd', 'e']],
    ['lt', [{ property: 'value.n', operator: 'lt', value: 3 }], ['a', 'e']],
    ['<=', [{ property: 'value.n', operator: '<=', value: 3 }], ['a', 'c', 'e']],
    ['like, case-insensitive', [{ property: 'name', operator: 'like', value: '*REPORT' }], ['a', 'd']],
    ['like with ?', [{ property: 'name', operator: 'like', value: '?eta' }], ['f']],
    ['in', [{ property: 'moduleId', operator: 'in', value: ['hr', 'none'] }], ['c', 'd']],
    ['exists true', [{ property: 'customFields.prio', operator: 'exists', value: true }], ['a', 'd']],
    ['exists false', [{ property: 'moduleId', operator: 'exists', value: false }], ['e', 'f', 'g', 'h']],
    ['invert', [{ property: 'moduleId', operator: 'eq', value: 'crm', invert: true }], ['c', 'd', 'e', 'f', 'g', 'h']],
    ['array element', [{ property: 'value.tags', operator: 'eq', value: 'y' }], ['a', 'b']],
    ['boolean', [{ property: 'favorite', operator: 'eq', value: true }], ['b']],
    ['id column', [{ property: 'id', operator: 'in', value: ['a', 'g', 'hidden-a'] }], ['a', 'g']],
    ['createdBy column', [{ property: 'createdBy', operator: 'eq', value: 'owner' }], ALL],
    ['source raw', [{ property: 'moduleId', operator: 'eq', value: 'crm', source: 'raw' }], ['a', 'b']],
    [
      'several ANDed',
      [
        { property: 'moduleId', operator: 'eq', value: 'crm' },
        { property: 'value.n', operator: 'gt', value: 1 },
      ],
      ['b'],
    ],
    ['unknown property', [{ property: 'nope.x', operator: 'eq', value: 1 }], []],
    ['unknown property inverted', [{ property: 'nope', operator: 'eq', value: 1, invert: true }], ALL],
  ])('filter %s', async (_n, conds, expected) => {
    expect(await ids(filter(...conds))).toEqual(expected);
  });

  it.each([
    ['field:value', 'value.status:open', ['a', 'c', 'e']],
    ['phrase', 'value.text:"hello world"', ['c']],
    ['wildcard', 'name:*report', ['a', 'd']],
    ['AND / NOT', 'moduleId:crm AND NOT value.status:closed', ['a']],
    ['OR with parentheses', '(moduleId:hr OR favorite:true) AND value.n:>4', ['b', 'd']],
    ['range', 'value.n:[2 TO 5]', ['b', 'c', 'e']],
    ['bare term', 'plain', ['g']],
    ['customFields', 'customFields.prio:low', ['d']],
  ])('query %s', async (_n, query, expected) => {
    expect(await ids({ query })).toEqual(expected);
  });

  it('query and filter together are ANDed', async () => {
    expect(
      await ids({ query: 'moduleId:crm', ...filter({ property: 'value.status', operator: 'eq', value: 'open' }) }),
    ).toEqual(['a']);
  });

  it.each([
    // Numbers sort before texts; DESC reverses that order too. Items without the field come last either way.
    ['value.n|DESC', ['f', 'd', 'b', 'c', 'e', 'a', 'g', 'h']],
    ['value.n|ASC', ['a', 'e', 'c', 'b', 'd', 'f', 'g', 'h']],
    ['name|ASC', ['a', 'b', 'd', 'e', 'g', 'c', 'h', 'f']],
    ['moduleId|DESC,name|DESC', ['c', 'd', 'b', 'a', 'f', 'h', 'g', 'e']],
    ['nonexistent.field|ASC', ALL],
    ['value.status|ASC,nonexistent|DESC', ['e', 'b', 'f', 'h', 'a', 'c', 'd', 'g']],
    ['id|DESC', [...ALL].reverse()],
  ])('sort %s (missing values last, ties in creation order)', async (sort, expected) => {
    expect(await ids({ sort })).toEqual(expected);
  });

  it.each(['moduleId|ASC', 'value.n|DESC', 'favorite|DESC,name|ASC'])(
    'pages of the list sorted by %s concatenate to the full list',
    async (sort) => {
      const full = await ids({ sort });
      const pages: string[] = [];
      for (let start = 0; start < 8; start += 3) {
        const body = (await kim.list('q', { sort, start, limit: 3 })).json();
        expect(body.total).toBe(8);
        pages.push(...body.items.map((i: any) => i.id));
      }
      expect(pages).toEqual(full);
    },
  );

  it.each([
    [
      'Europe/Berlin day across the spring change',
      { timezoneName: 'Europe/Berlin' },
      [
        ['gte', '2026-03-29'],
        ['lt', '2026-03-30'],
      ],
      ['a', 'b', 'd'],
    ],
    [
      'UTC day (default)',
      {},
      [
        ['gte', '2026-03-29'],
        ['lt', '2026-03-30'],
      ],
      ['a', 'b', 'c'],
    ],
    [
      'Berlin 03:00 on the change day is 01:00 UTC',
      { timezoneName: 'Europe/Berlin' },
      [['lt', '2026-03-29T03:00:00']],
      ['a', 'd'],
    ],
    ['offset GMT+2', { timezoneOffset: 'GMT+2' }, [['lt', '2026-03-29T03:00:00']], ['a', 'd']],
    ['offset +01:00', { timezoneOffset: '+01:00' }, [['<', '2026-03-29T03:00:00']], ['a', 'b', 'd']],
    [
      'timezoneName wins over timezoneOffset',
      { timezoneName: 'Europe/Berlin', timezoneOffset: 'GMT+1' },
      [['lt', '2026-03-29T03:00:00']],
      ['a', 'd'],
    ],
    [
      'a value with its own offset ignores the zone',
      { timezoneName: 'Europe/Berlin' },
      [['lt', '2026-03-29T02:00:00Z']],
      ['a', 'b', 'd'],
    ],
    [
      'Berlin day across the autumn change (25 hours)',
      { timezoneName: 'Europe/Berlin' },
      [
        ['>=', '2026-10-25'],
        ['<', '2026-10-26'],
      ],
      ['e', 'h'],
    ],
    [
      'UTC day of the autumn change',
      {},
      [
        ['>=', '2026-10-25'],
        ['<', '2026-10-26'],
      ],
      ['f', 'h'],
    ],
  ])('dates: %s', async (_n, zone, bounds, expected) => {
    const conds = bounds.map(([operator, value]) => ({ property: 'value.when', operator, value }));
    expect(await ids({ ...zone, ...filter(...conds) })).toEqual(expected);
  });

  it('compares createdOn and updatedOn as instants', async () => {
    const all = (await kim.list('q')).json().items;
    const first = all[0].createdOn;
    const later = await ids(filter({ property: 'createdOn', operator: 'gt', value: first }));
    expect(later).toEqual(all.filter((i: any) => i.createdOn > first).map((i: any) => i.id));
    expect(await ids(filter({ property: 'updatedOn', operator: 'lt', value: '2000-01-01' }))).toEqual([]);
    expect(
      await ids(filter({ property: 'createdOn', operator: 'gte', value: '2000-01-01T00:00:00', timezone: 'x' })),
    ).toHaveLength(8);
  });

  it.each([
    ['unparsable filter JSON', { filter: '[{"property": "name",' }, 500],
    ['filter that is not JSON at all', { filter: "x' OR 1=1 --" }, 500],
    ['unknown operator', filter({ property: 'name', operator: 'regex', value: '.*' }), 400],
    ['an object built-in as the operator', filter({ property: 'name', operator: 'constructor', value: 'a' }), 400],
    ['the prototype as the operator', filter({ property: 'name', operator: '__proto__', value: 'a' }), 400],
    ['unknown source', filter({ property: 'name', operator: 'eq', value: 'a', source: 'sql' }), 400],
    ['filter not an array', { filter: '{"property":"name"}' }, 400],
    ['query syntax error', { query: 'name:(unclosed' }, 400],
    ['bad sort direction', { sort: 'name|SIDEWAYS' }, 400],
    [
      'unknown time zone',
      { timezoneName: 'Mars/Olympus', ...filter({ property: 'value.when', operator: 'gt', value: '2026-01-01' }) },
      400,
    ],
  ])('%s answers %i with the error object', async (_n, params, status) => {
    expectErrorObject(await kim.list('q', params as Record<string, string>), status);
  });

  it.each([
    ['SQL in a filter property', filter({ property: "name') OR 1=1 --", operator: 'eq', value: 'x' })],
    ['SQL in a filter value', filter({ property: 'name', operator: 'eq', value: "x' OR '1'='1" })],
    ['SQL in a like pattern', filter({ property: 'name', operator: 'like', value: "%' OR '1'='1" })],
    ['SQL in a sort field', { sort: 'name; DROP TABLE storage_items --|ASC' }],
    ['SQL in a sort path', { sort: 'value."n\') --|DESC' }],
    ['SQL in a query', { query: "name:x' OR '1'='1" }],
    ['query targeting restrictions', { query: 'readRestriction.roles:OWNER' }],
    [
      'SQL in timezoneName',
      {
        timezoneName: "UTC'; DROP TABLE storage_items; --",
        ...filter({ property: 'value.when', operator: 'gt', value: '2026-01-01' }),
      },
    ],
    [
      'SQL in timezoneOffset',
      { timezoneOffset: "+01:00' --", ...filter({ property: 'value.when', operator: 'gt', value: '2026-01-01' }) },
    ],
  ])('%s neither leaks hidden items nor internals nor changes data', async (_n, params) => {
    const res = await kim.list('q', params as Record<string, string>);
    if (res.statusCode === 200) {
      for (const i of res.json().items) expect(i.id).not.toMatch(/^hidden-/);
      expect(res.json().total).toBeLessThanOrEqual(8);
    } else {
      expect([400, 500]).toContain(res.statusCode);
      expectErrorObject(res, res.statusCode);
    }
    expect((await owner.list('q')).json().total).toBe(16);
  });
});
