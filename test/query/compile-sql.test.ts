import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeEachEngine, openTestDatabase } from '../helpers/test-app.js';
import type { Database } from '../../src/platform/db/database.js';
import {
  compileListQuery,
  type FieldTarget,
  type ListQueryInput,
  type QueryContext,
} from '../../src/platform/query/index.js';

const at = (iso: string) => Date.parse(iso);

// id, doc, title (text column), created_ms (datetime column), active (boolean column), score (number column)
const ROWS: Array<[number, Record<string, unknown>, string | null, number | null, boolean | null, number | null]> = [
  [
    1,
    {
      name: 'Alpha',
      status: 'open',
      n: 5,
      tags: ['red', 'blue'],
      date: '2026-03-29T00:30:00Z',
      flag: true,
      nested: { deep: 'x' },
      text: 'The quick brown fox',
    },
    'First',
    at('2026-03-29T00:30:00Z'),
    true,
    1.5,
  ],
  [
    2,
    {
      name: 'beta',
      status: 'closed',
      n: 10,
      tags: ['green'],
      date: '2026-03-29T01:30:00.000Z',
      flag: false,
      text: 'Lazy dog',
      quote: 'it\'s "quoted" \\ back',
    },
    'second',
    at('2026-03-29T01:30:00Z'),
    false,
    20,
  ],
  [
    3,
    { name: 'Gamma', status: 'open', n: '7', tags: [], date: '2026-03-29T03:30:00+02:00', text: '50% off_sale' },
    'Third',
    at('2026-10-25T00:30:00Z'),
    true,
    3,
  ],
  [
    4,
    { name: 'delta', n: 2, date: 'not a date', text: 'Another fox 🦊', nested: { deep: ['x', 'y'] } },
    null,
    null,
    null,
    null,
  ],
  [
    5,
    {
      name: 'Épsilon',
      status: null,
      n: 100,
      date: '2026-10-25T00:30:00Z',
      weird: '2026-02-30T00:00:00Z',
      text: 'offXsale',
    },
    'fifth',
    at('2026-10-25T01:30:00Z'),
    false,
    -2,
  ],
  [
    6,
    { name: "O'Brien; DROP TABLE q_items; --", n: -1, date: '2026-10-25T01:30:00Z', weird: '2026-13-01', text: 'now' },
    'Sixth',
    at('2026-03-28T23:00:00Z'),
    true,
    2.5,
  ],
];
const ALL = [1, 2, 3, 4, 5, 6];

describeEachEngine('query compiler SQL', (engine) => {
  let database: Database;
  let ctx: QueryContext;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
    const { db, dialect } = database;
    await sql`CREATE TABLE q_items (
      id integer PRIMARY KEY,
      doc ${sql.raw(dialect.jsonColumnType)} NOT NULL,
      title text,
      created_ms ${sql.raw(dialect.bigintColumnType)},
      active ${sql.raw(engine === 'postgres' ? 'boolean' : 'integer')},
      score ${sql.raw(engine === 'postgres' ? 'double precision' : 'real')}
    )`.execute(db);
    for (const [id, doc, title, created, active, score] of ROWS) {
      await db
        .insertInto('q_items')
        .values({
          id,
          doc: dialect.toJson(doc),
          title,
          created_ms: created,
          active: active === null ? null : dialect.toBool(active),
          score,
        })
        .execute();
    }
    const columns: Record<string, FieldTarget> = {
      title: { kind: 'column', column: 'q.title', type: 'text' },
      created: { kind: 'column', column: 'q.created_ms', type: 'datetime' },
      active: { kind: 'column', column: 'q.active', type: 'boolean' },
      score: { kind: 'column', column: 'q.score', type: 'number' },
    };
    ctx = {
      dialect,
      resolve: (property) =>
        columns[property] ??
        (property.startsWith('unknown.') ? null : { kind: 'json', column: 'q.doc', path: property.split('.') }),
      fullText: { kind: 'json', column: 'q.doc', path: [] },
    };
  });

  afterAll(async () => {
    await database?.destroy();
  });

  async function ids(input: ListQueryInput): Promise<number[]> {
    const compiled = compileListQuery(input, ctx);
    let query = database.db.selectFrom('q_items as q').select('q.id');
    if (compiled.where) query = query.where(compiled.where);
    for (const item of compiled.orderBy) query = query.orderBy(item);
    const rows = await query.orderBy('q.id').execute();
    return rows.map((r) => Number(r.id));
  }
  const filter = (property: string, operator: string, value?: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify([{ property, operator, value, ...extra }]);

  it.each<[string, ListQueryInput, number[]]>([
    ['no parameters', {}, ALL],
    ['eq string (exact case)', { filter: filter('name', 'eq', 'Alpha') }, [1]],
    ['eq string other case', { filter: filter('name', '=', 'alpha') }, []],
    ['eq number', { filter: filter('n', 'eq', 5) }, [1]],
    ['eq number does not match a numeric string', { filter: filter('n', 'eq', 7) }, []],
    ['eq numeric string matches the string and the number', { filter: filter('n', 'eq', '10') }, [2]],
    ['eq numeric string matches a stored string', { filter: filter('n', 'eq', '7') }, [3]],
    ['eq boolean', { filter: filter('flag', 'eq', true) }, [1]],
    ['eq null: missing or null', { filter: filter('status', 'eq', null) }, [4, 5, 6]],
    ['ne: missing values are not equal', { filter: filter('status', 'ne', 'open') }, [2, 4, 5, 6]],
    ['!= alias', { filter: filter('status', '!=', 'open') }, [2, 4, 5, 6]],
    ['gt number: numbers only', { filter: filter('n', 'gt', 5) }, [2, 5]],
    ['> alias', { filter: filter('n', '>', 5) }, [2, 5]],
    ['gte', { filter: filter('n', 'gte', 5) }, [1, 2, 5]],
    ['>=', { filter: filter('n', '>=', 5) }, [1, 2, 5]],
    ['lt', { filter: filter('n', 'lt', 5) }, [4, 6]],
    ['<', { filter: filter('n', '<', 5) }, [4, 6]],
    ['lte', { filter: filter('n', 'lte', 2) }, [4, 6]],
    ['<=', { filter: filter('n', '<=', 2) }, [4, 6]],
    ['gt numeric string: numbers numerically, strings lexically', { filter: filter('n', 'gt', '5') }, [2, 3, 5]],
    ['gt string: strings only, lexically', { filter: filter('name', 'gt', 'a') }, [2, 4, 5]],
    ['like prefix, case-insensitive', { filter: filter('name', 'like', 'AL*') }, [1]],
    ['like suffix', { filter: filter('name', 'like', '*TA') }, [2, 4]],
    ['like ?', { filter: filter('name', 'like', '?amma') }, [3]],
    ['like with literal % and _', { filter: filter('text', 'like', '50% off_*') }, [3]],
    ['like: _ is literal', { filter: filter('text', 'like', '*off_sale') }, [3]],
    ['like does not match numbers', { filter: filter('n', 'like', '*') }, [3]],
    ['in strings', { filter: filter('status', 'in', ['open', 'closed']) }, [1, 2, 3]],
    ['in numbers', { filter: filter('n', 'in', [5, 100]) }, [1, 5]],
    ['in empty', { filter: filter('n', 'in', []) }, []],
    ['exists true: null counts as missing', { filter: filter('status', 'exists', true) }, [1, 2, 3]],
    ['exists false', { filter: filter('status', 'exists', false) }, [4, 5, 6]],
    ['invert', { filter: filter('n', 'gt', 5, { invert: true }) }, [1, 3, 4, 6]],
    ['invert of exists', { filter: filter('status', 'exists', true, { invert: true }) }, [4, 5, 6]],
    ['array: any element', { filter: filter('tags', 'eq', 'red') }, [1]],
    ['array: empty array does not exist', { filter: filter('tags', 'exists', true) }, [1, 2]],
    ['array: ne', { filter: filter('tags', 'ne', 'red') }, [2, 3, 4, 5, 6]],
    ['nested path, scalar or array', { filter: filter('nested.deep', 'eq', 'x') }, [1, 4]],
    ['an object is no value', { filter: filter('nested', 'exists', true) }, []],
    [
      'several conditions are ANDed',
      {
        filter: JSON.stringify([
          { property: 'status', operator: 'eq', value: 'open' },
          { property: 'n', operator: 'gt', value: 1 },
        ]),
      },
      [1],
    ],
    ['unknown property: no value', { filter: filter('unknown.x', 'eq', 'a') }, []],
    ['unknown property: ne matches all', { filter: filter('unknown.x', 'ne', 'a') }, ALL],
    ['nonexistent JSON property: ne matches all', { filter: filter('nope', 'ne', 'a') }, ALL],
    ['parsed filter array', { filter: [{ property: 'n', operator: 'lt', value: 0 }] }, [6]],
  ])('filter: %s', async (_name, input, expected) => {
    expect(await ids(input)).toEqual(expected);
  });

  it.each<[string, ListQueryInput, number[]]>([
    // Stored: 1 00:30Z, 2 01:30Z, 3 03:30+02:00 = 01:30Z (all 2026-03-29), 5 2026-10-25T00:30Z, 6 2026-10-25T01:30Z, 4 no date.
    [
      'Berlin, in the spring gap: 02:30 is 03:30 CEST = 01:30Z',
      { filter: filter('date', 'gte', '2026-03-29T02:30'), timezoneName: 'Europe/Berlin' },
      [2, 3, 5, 6],
    ],
    [
      'Berlin, just after the change',
      { filter: filter('date', 'lt', '2026-03-29T03:00'), timezoneName: 'Europe/Berlin' },
      [1],
    ],
    [
      'Berlin, just before the change',
      { filter: filter('date', 'lte', '2026-03-29T01:30'), timezoneName: 'Europe/Berlin' },
      [1],
    ],
    [
      'Berlin, autumn overlap: 02:30 is the first pass (00:30Z)',
      { filter: filter('date', 'gt', '2026-10-25T02:30'), timezoneName: 'Europe/Berlin' },
      [6],
    ],
    [
      'Berlin, autumn overlap gte',
      { filter: filter('date', 'gte', '2026-10-25T02:30'), timezoneName: 'Europe/Berlin' },
      [5, 6],
    ],
    [
      'Berlin, after the autumn change: 03:00 CET = 02:00Z',
      { filter: filter('date', 'lt', '2026-10-25T03:00'), timezoneName: 'Europe/Berlin' },
      [1, 2, 3, 5, 6],
    ],
    [
      'Berlin, date only is the day start (23:00Z before)',
      { filter: filter('date', 'gte', '2026-03-29'), timezoneName: 'Europe/Berlin' },
      [1, 2, 3, 5, 6],
    ],
    ['UTC date only', { filter: filter('date', 'lt', '2026-03-29') }, []],
    [
      'timezoneOffset GMT+2',
      { filter: filter('date', 'gte', '2026-03-29T03:30'), timezoneOffset: 'GMT+2' },
      [2, 3, 5, 6],
    ],
    ['timezoneOffset GMT+1', { filter: filter('date', 'gte', '2026-03-29T03:30'), timezoneOffset: 'GMT+1' }, [5, 6]],
    ['timezoneOffset +02:00', { filter: filter('date', 'lt', '2026-03-29T03:30'), timezoneOffset: '+02:00' }, [1]],
    [
      'timezoneName wins',
      { filter: filter('date', 'lt', '2026-03-29T03:30'), timezoneName: 'UTC', timezoneOffset: '+02:00' },
      [1, 2, 3],
    ],
    [
      'the value keeps its own zone',
      { filter: filter('date', 'gt', '2026-03-29T02:00:00+02:00'), timezoneName: 'America/New_York' },
      [1, 2, 3, 5, 6],
    ],
    [
      'a stored value with milliseconds and one with an offset compare as instants',
      { filter: filter('date', 'lte', '2026-03-29T01:30:00Z') },
      [1, 2, 3],
    ],
    ['invalid stored dates never match and never fail', { filter: filter('weird', 'gt', '2000-01-01') }, []],
    ['a non-date stored string does not match', { filter: filter('text', 'gt', '2000-01-01') }, []],
    ['array of dates: any element', { filter: filter('dates', 'gt', '2026-06-01') }, []],
  ])('dates: %s', async (_name, input, expected) => {
    expect(await ids(input)).toEqual(expected);
  });

  it('stored date texts: the same ones read as instants on both engines, the others never match and never fail', async () => {
    const { db, dialect } = database;
    const texts: Array<[string, boolean]> = [
      ['2026-03-29T10:00:00.123456789Z', true],
      ['9999-12-31', true],
      ['2026-03-29 10:00', true],
      ['2026-03-29T10:00+02:00', true],
      ['2026-03-29T10:00:00.5', true],
      ['2026-03-29T23:59:59.999+14:00', true],
      ['2028-02-29', true],
      ['2026-02-29T00:00:00Z', false],
      ['2026-03-29T24:00', false],
      ['2026-03-29T10:00:00+15:30', false],
      ['2026-03-29T10:61', false],
      ['2026-00-10', false],
      ['2026-03-29T10:00:60Z', false],
      ['2026-03-29T10:00:00+0200', false],
      ['2026-03-29T10:00:00+02:60', false],
      ['2026-03-29T10', false],
      ['2026-03-29T10:00:00.Z', false],
      ['2026-03-29T10:00:00z', false],
      ['0000-01-01', false],
      ['2026-03-29garbage', false],
      ['now', false],
    ];
    await sql`CREATE TABLE q_dates (id integer PRIMARY KEY, doc ${sql.raw(dialect.jsonColumnType)} NOT NULL)`.execute(
      db,
    );
    await db
      .insertInto('q_dates')
      .values(texts.map(([v], i) => ({ id: i + 1, doc: dialect.toJson({ v, list: [v] }) })))
      .execute();
    const expected = texts.flatMap(([, valid], i) => (valid ? [i + 1] : []));
    for (const property of ['v', 'list']) {
      const compiled = compileListQuery(
        { filter: filter(property, 'gt', '0001-01-01') },
        { ...ctx, resolve: (p) => ({ kind: 'json', column: 'q.doc', path: [p] }) },
      );
      const rows = await db.selectFrom('q_dates as q').select('q.id').where(compiled.where!).orderBy('q.id').execute();
      expect(rows.map((r) => Number(r.id))).toEqual(expected);
    }
  });

  it.each<[string, ListQueryInput, number[]]>([
    ['field:value, case-insensitive', { query: 'status:OPEN' }, [1, 3]],
    ['field:value on a number', { query: 'n:5' }, [1]],
    ['field:value on a numeric string', { query: 'n:7' }, [3]],
    ['field:value on a boolean', { query: 'flag:false' }, [2]],
    ['phrase', { query: 'text:"lazy DOG"' }, [2]],
    ['phrase with SQL in it', { query: 'name:"O\'Brien; DROP TABLE q_items; --"' }, [6]],
    ['wildcard', { query: 'name:*ta' }, [2, 4]],
    ['field:* (exists)', { query: 'status:*' }, [1, 2, 3]],
    ['array element', { query: 'tags:BLUE' }, [1]],
    ['range inclusive', { query: 'n:[2 TO 10]' }, [1, 2, 4]],
    ['range exclusive', { query: 'n:{2 TO 10}' }, [1]],
    // '7' is a string: it compares lexically with the bound ('7' > '10').
    ['range open end', { query: 'n:[10 TO *]' }, [2, 3, 5]],
    ['>', { query: 'n:>5' }, [2, 3, 5]],
    ['<=', { query: 'n:<=2' }, [4, 6]],
    [
      'date range in Berlin across both changes',
      { query: 'date:[2026-03-29T02:30 TO 2026-10-25T02:30]', timezoneName: 'Europe/Berlin' },
      [2, 3, 5],
    ],
    ['date comparison with its own zone', { query: 'date:<"2026-03-29T03:00:00+02:00"' }, [1]],
    ['bare term: substring anywhere, case-insensitive', { query: 'FOX' }, [1, 4]],
    ['bare term matches numbers in the JSON text too', { query: '100' }, [5]],
    ['bare phrase', { query: '"brown fox"' }, [1]],
    ['bare wildcard', { query: 'qu?ck' }, [1]],
    ['bare term with a quote, as JSON text', { query: '"\\"quoted\\""' }, [2]],
    ['bare term with an apostrophe', { query: '"it\'s"' }, [2]],
    ['bare term with literal %', { query: '"50%"' }, [3]],
    ['bare term with an emoji', { query: '"🦊"' }, [4]],
    ['OR', { query: 'lazy OR another' }, [2, 4]],
    ['whitespace is OR', { query: 'lazy another' }, [2, 4]],
    ['AND', { query: 'fox AND quick' }, [1]],
    ['NOT', { query: 'NOT fox' }, [2, 3, 5, 6]],
    ['-term', { query: 'fox -quick' }, [4]],
    ['+term', { query: '+fox quick' }, [1, 4]],
    ['-field:value keeps items without the field', { query: '-status:closed' }, [1, 3, 4, 5, 6]],
    ['-(group)', { query: '-(fox OR lazy)' }, [3, 5, 6]],
    ['groups', { query: '(status:open OR n:10) AND NOT name:gamma' }, [1, 2]],
    ['field group', { query: 'status:(open OR closed)' }, [1, 3, 2].sort()],
    ['query and filter are ANDed', { query: 'status:open', filter: filter('n', 'eq', 5) }, [1]],
    ['unknown property in the query', { query: 'unknown.x:a OR n:5' }, [1]],
  ])('query: %s', async (_name, input, expected) => {
    expect(await ids(input)).toEqual(expected);
  });

  it.each<[string, ListQueryInput, number[]]>([
    ['numbers numerically before strings, ASC', { sort: 'n|ASC' }, [6, 4, 1, 2, 5, 3]],
    ['DESC: strings, then numbers descending', { sort: 'n|DESC' }, [3, 5, 2, 1, 4, 6]],
    ['strings in code point order', { sort: 'name' }, [1, 3, 6, 2, 4, 5]],
    ['missing and null last, also DESC', { sort: 'status|desc' }, [1, 3, 2, 4, 5, 6]],
    ['missing and null last, ASC', { sort: 'status|ASC' }, [2, 1, 3, 4, 5, 6]],
    ['several instructions', { sort: 'status|ASC,n|DESC' }, [2, 3, 1, 5, 4, 6]],
    ['a field nobody has: no error, original order', { sort: 'nope.nothing|DESC' }, ALL],
    ['an unknown property: no error', { sort: 'unknown.x|ASC' }, ALL],
    ['dates as ISO strings', { sort: 'date|DESC', filter: filter('date', 'gt', '2000-01-01') }, [6, 5, 3, 2, 1]],
    ['parsed sorters', { sort: [{ property: 'n', direction: 'DESC' }], filter: filter('n', 'gt', 0) }, [5, 2, 1, 4]],
  ])('sort: %s', async (_name, input, expected) => {
    expect(await ids(input)).toEqual(expected);
  });

  it.each<[string, ListQueryInput, number[]]>([
    ['text eq', { filter: filter('title', 'eq', 'First') }, [1]],
    ['text ne keeps NULL rows', { filter: filter('title', 'ne', 'First') }, [2, 3, 4, 5, 6]],
    ['text query, case-insensitive', { query: 'title:FIRST' }, [1]],
    ['text like', { filter: filter('title', 'like', 's*') }, [2, 6]],
    ['text lexical range', { query: 'title:[S TO Tz]' }, [6, 3].sort()],
    [
      'text compared with a date: no title reads as a date, no error',
      { filter: filter('title', 'gt', '2000-01-01') },
      [],
    ],
    [
      'datetime range in Berlin',
      { filter: filter('created', 'gte', '2026-03-29'), timezoneName: 'Europe/Berlin' },
      [1, 2, 3, 5, 6],
    ],
    [
      'datetime range exclusive',
      { filter: filter('created', 'gt', '2026-03-29'), timezoneName: 'Europe/Berlin' },
      [1, 2, 3, 5],
    ],
    ['datetime: a day in the query (UTC)', { query: 'created:2026-03-29' }, [1, 2]],
    [
      'datetime: a day in the query (Berlin)',
      { query: 'created:2026-03-29', timezoneName: 'Europe/Berlin' },
      [1, 2, 6],
    ],
    ['datetime exists false', { filter: filter('created', 'exists', false) }, [4]],
    ['boolean eq', { filter: filter('active', 'eq', true) }, [1, 3, 6]],
    ['boolean in the query', { query: 'active:false' }, [2, 5]],
    ['number gt', { filter: filter('score', 'gt', 2) }, [2, 3, 6]],
    ['number in the query', { query: 'score:[1 TO 3]' }, [1, 3, 6]],
    ['sort number DESC, NULL last', { sort: 'score|DESC' }, [2, 3, 6, 1, 5, 4]],
    ['sort text ASC in code point order', { sort: 'title|ASC' }, [1, 6, 3, 5, 2, 4]],
    ['sort datetime DESC', { sort: 'created|DESC' }, [5, 3, 2, 1, 6, 4]],
  ])('columns: %s', async (_name, input, expected) => {
    expect(await ids(input)).toEqual(expected);
  });

  const NASTY = [
    "'",
    "'; DROP TABLE q_items; --",
    '"',
    '\\',
    '$1',
    '$',
    '..',
    '%',
    '_',
    "\\'",
    '"); DROP TABLE q_items; --',
    "Robert'); DELETE FROM q_items;--",
  ];

  it('injection attempts in values neither fail nor change data', async () => {
    for (const value of NASTY) {
      for (const operator of ['eq', 'ne', 'gt', 'like']) {
        await expect(ids({ filter: filter('name', operator, value) })).resolves.toBeInstanceOf(Array);
        await expect(ids({ filter: filter('title', operator, value) })).resolves.toBeInstanceOf(Array);
      }
      await expect(ids({ filter: filter('name', 'in', [value, 1]) })).resolves.toBeInstanceOf(Array);
    }
    expect(await ids({ filter: filter('name', 'eq', "O'Brien; DROP TABLE q_items; --") })).toEqual([6]);
    // NUL cannot be stored in PostgreSQL text: refused up front on both engines rather than failing in SQL.
    await expect(ids({ filter: filter('name', 'eq', 'a\u0000b') })).rejects.toMatchObject({ statusCode: 400 });
    await expect(ids({ query: 'a\u0000b' })).rejects.toMatchObject({ statusCode: 400 });
    expect(await ids({})).toEqual(ALL);
  });

  it('injection attempts in properties are refused with 400 or treated as plain keys', async () => {
    for (const property of [
      "name'",
      "a'); DROP TABLE q_items; --",
      '$',
      '$.name',
      'a[0]',
      'a b',
      'a;b',
      '*',
      "'",
      ')',
    ]) {
      expect(await ids({ filter: filter(property, 'eq', 'x') })).toEqual([]);
      expect(await ids({ filter: filter(property, 'ne', 'x') })).toEqual(ALL);
      expect(await ids({ sort: `${property}|DESC` })).toEqual(ALL);
    }
    for (const property of ['a"b', 'a\\b', '..', 'a..b', '.a', 'a.', '', '\u0001']) {
      await expect(ids({ filter: filter(property, 'eq', 'x') })).rejects.toMatchObject({ statusCode: 400 });
    }
    expect(await ids({})).toEqual(ALL);
  });

  it('injection attempts in query strings neither fail with SQL nor change data', async () => {
    const queries = [
      'name:"\'; DROP TABLE q_items; --"',
      "'; DROP TABLE q_items; --",
      'name:\\"',
      'name:\\\\',
      '"\\\\"',
      '$1',
      'name:$1',
      '"%"',
      'name:a\\*b',
      'a\\:b:c',
      '"); DROP TABLE q_items; --',
    ];
    for (const query of queries) {
      try {
        await ids({ query });
      } catch (err: any) {
        // Only our own 400 (a syntax error of the query) is acceptable, never a database error.
        expect(err.statusCode, `${query}: ${err.message}`).toBe(400);
        expect(err.message).not.toMatch(/SQL|syntax error at or near|SQLITE/i);
      }
    }
    expect(await ids({ query: '"\\\\"' })).toEqual([2]);
    expect(await ids({})).toEqual(ALL);
  });

  it('inputs at the limits still run as one statement on the engine', async () => {
    const values = Array.from({ length: 1000 }, (_, i) => String(i));
    // '7' is stored as a string and matches the string '7'; -1 is not among the values.
    expect(await ids({ filter: filter('n', 'in', values) })).toEqual([1, 2, 3, 4, 5]);
    const dates = Array.from({ length: 100 }, (_, i) => ({
      property: `date`,
      operator: 'gte',
      value: `2026-03-${String((i % 28) + 1).padStart(2, '0')}T00:00`,
    }));
    expect(
      await ids({
        filter: JSON.stringify(dates.slice(0, 99).concat({ property: 'n', operator: 'lte', value: 10 } as any)),
        timezoneName: 'Europe/Berlin',
      }),
    ).toEqual([1, 2, 6]);
    const query = Array.from({ length: 32 }, (_, i) => `name:*${i}*`).join(' OR ');
    expect(await ids({ query })).toEqual([]);
  });

  it('errors of the parameters are AppErrors, raised before any SQL runs', () => {
    expect(() => compileListQuery({ filter: '[' }, ctx)).toThrow(expect.objectContaining({ statusCode: 500 }));
    expect(() => compileListQuery({ filter: '[{"property":"a","operator":"nope"}]' }, ctx)).toThrow(
      expect.objectContaining({ statusCode: 400 }),
    );
    expect(() => compileListQuery({ sort: 'a|UP' }, ctx)).toThrow(expect.objectContaining({ statusCode: 400 }));
    expect(() => compileListQuery({ query: 'a AND' }, ctx)).toThrow(expect.objectContaining({ statusCode: 400 }));
    expect(() => compileListQuery({ timezoneName: 'Nowhere/City' }, ctx)).toThrow(
      expect.objectContaining({ statusCode: 400 }),
    );
    expect(() => compileListQuery({ timezoneOffset: 'GMT+99' }, ctx)).toThrow(
      expect.objectContaining({ statusCode: 400 }),
    );
    expect(compileListQuery({}, ctx).where).toBeUndefined();
  });
});
