// Differential test: random filters, queries and sorts give the same ids, in the same order, on SQLite and PostgreSQL,
// whose documents are read from jsonb and from JSON text (JsonColumn.text) alike.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from 'kysely';
import { openTestDatabase } from '../helpers/test-app.js';
import type { Database } from '../../src/platform/db/database.js';
import { compileListQuery, type ListQueryInput, type QueryContext } from '../../src/platform/query/index.js';

const DOCS: Array<Record<string, unknown>> = [
  { a: 1, b: 'x', c: true, d: '2026-03-29T00:30:00Z', e: ['x', 1, null], s: 'Alpha beta' },
  { a: '1', b: 'X', c: false, d: '2026-03-29T03:30:00+02:00', e: [], s: 'alpha' },
  { a: 2.5, b: 'y', c: 'true', d: '2026-03-29', e: [2, 3], s: 'Gamma 50%' },
  { a: -3, b: null, d: '2026-10-25T02:30:00.250Z', e: 'x', s: 'gamma_delta' },
  { a: '10', b: 'xy', c: 1, d: 'not a date', e: ['y', 'z'], s: '' },
  { a: 10, b: ['x', 'y'], d: '2026-10-25 01:00', e: { x: 1 }, s: 'O\'Neil "q"' },
  { a: null, b: 'Y', c: true, d: 20260329, s: 'zeta 🦊' },
  { b: 'z', c: false, d: '2026-02-30T00:00:00Z', e: [true, false], s: 'Beta' },
  { a: 0, b: '', c: null, d: '2026-03-29T02:00:00-01:00', e: ['2026-03-29'], s: 'alpha gamma' },
  { a: 1e3, b: 'x y', c: true, d: '2026-12-31T23:59:59.999Z', e: [10, '10'], s: 'ALPHA' },
];
const PROPS = ['a', 'b', 'c', 'd', 'e', 's', 'missing'];
const VALUES: unknown[] = [
  1,
  '1',
  10,
  '10',
  2.5,
  -3,
  0,
  'x',
  'X',
  'y',
  'xy',
  '',
  true,
  false,
  null,
  'alpha',
  'Alpha',
  '2026-03-29',
  '2026-03-29T02:30',
  '2026-10-25T02:30',
  '2026-03-29T01:00:00Z',
];
const OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'like', 'in', 'exists'];
const TERMS = [
  'alpha',
  'ALPHA',
  'gam*',
  'x',
  '"alpha beta"',
  '50%',
  '🦊',
  'a:1',
  'a:10',
  'b:x',
  'b:X*',
  'c:true',
  'a:>1',
  'a:[0 TO 10]',
  'a:{1 TO *]',
  'd:>2026-03-29T01:00',
  'd:[2026-03-29 TO 2026-10-25T02:30]',
  'e:x',
  'e:*',
  's:alpha*',
  'missing:x',
  'b:(x OR y)',
];
const JOIN = [' ', ' AND ', ' OR ', ' AND NOT ', ' -', ' +'];

describe.skipIf(!inject('pgUrl'))('SQLite and PostgreSQL agree', () => {
  const engines: Record<string, { database: Database; ctx: QueryContext; table: string }> = {};

  beforeAll(async () => {
    for (const engine of ['sqlite', 'postgres'] as const) {
      const database = await openTestDatabase(engine);
      await sql`CREATE TABLE q_agree (id integer PRIMARY KEY, doc ${sql.raw(database.dialect.jsonColumnType)} NOT NULL)`.execute(
        database.db,
      );
      await database.db
        .insertInto('q_agree')
        .values(DOCS.map((d, i) => ({ id: i + 1, doc: database.dialect.toJson(d) })))
        .execute();
      engines[engine] = {
        database,
        table: 'q_agree',
        ctx: {
          dialect: database.dialect,
          resolve: (p) => ({ kind: 'json', column: 'q.doc', path: p.split('.') }),
          fullText: { kind: 'json', column: 'q.doc', path: [] },
        },
      };
    }
    // PostgreSQL with the documents held as JSON text (as storage_items.doc is), parsed where the SQL reads them.
    const { database } = engines.postgres;
    await sql`CREATE TABLE q_agree_text (id integer PRIMARY KEY, doc text NOT NULL)`.execute(database.db);
    await sql`INSERT INTO q_agree_text SELECT id, doc::text FROM q_agree`.execute(database.db);
    engines['postgres, text'] = {
      database,
      table: 'q_agree_text',
      ctx: {
        dialect: database.dialect,
        resolve: (p) => ({ kind: 'json', column: 'q.doc', text: true, path: p.split('.') }),
        fullText: { kind: 'json', column: 'q.doc', text: true, path: [] },
      },
    };
  });

  afterAll(async () => {
    for (const e of new Set(Object.values(engines).map((e) => e.database))) await e.destroy();
  });

  async function run(engine: string, input: ListQueryInput): Promise<number[] | string> {
    const { database, ctx, table } = engines[engine];
    let compiled;
    try {
      compiled = compileListQuery(input, ctx);
    } catch (err: any) {
      return `error ${err.statusCode}`;
    }
    let q = database.db.selectFrom(`${table} as q`).select('q.id');
    if (compiled.where) q = q.where(compiled.where);
    for (const o of compiled.orderBy) q = q.orderBy(o);
    return (await q.orderBy('q.id').execute()).map((r) => Number(r.id));
  }

  it('on 600 random inputs', async () => {
    let seed = 42;
    const pick = <T>(xs: T[]): T => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return xs[seed % xs.length];
    };
    const outcomes = new Set<number | string>();
    for (let i = 0; i < 600; i++) {
      const conditions = Array.from({ length: 1 + (i % 3) }, () => {
        const operator = pick(OPS);
        const value =
          operator === 'in'
            ? [pick(VALUES), pick(VALUES)].filter((v) => v !== null)
            : operator === 'exists'
              ? pick([true, false])
              : pick(VALUES);
        return { property: pick(PROPS), operator, value, invert: pick([false, false, true]) };
      });
      const query =
        i % 2
          ? Array.from({ length: 1 + (i % 4) }, () => pick(TERMS)).reduce((q, t) => `${q}${pick(JOIN)}${t}`)
          : undefined;
      const input: ListQueryInput = {
        filter: i % 3 === 0 ? undefined : JSON.stringify(conditions),
        query,
        sort: `${pick(PROPS)}|${pick(['ASC', 'DESC'])},${pick(PROPS)}|${pick(['ASC', 'DESC'])}`,
        timezoneName: pick([undefined, 'Europe/Berlin', 'America/New_York']),
      };
      const [a, b, c] = [await run('sqlite', input), await run('postgres', input), await run('postgres, text', input)];
      expect(b, JSON.stringify(input)).toEqual(a);
      expect(c, JSON.stringify(input)).toEqual(a);
      outcomes.add(typeof a === 'string' ? a : a.length);
    }
    // The inputs are not degenerate: empty, partial and full results and refused inputs all occur.
    expect(outcomes.size).toBeGreaterThan(8);
  });
});
