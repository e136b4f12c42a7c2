// Engine-neutral SQL helpers for the dialects' query implementations.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { isSafePathSegment } from './values.js';
import { QUERY_ERRORS } from './query.errors.js';
import type { JsonColumn } from './query-ast.js';

const COLUMN_REF = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/** Names kept by ref and table at most: the names come from modules (aliases, columns, tables), a few dozen in all. */
const MAX_NAMES = 2_000;
const refs = new Map<string, RawBuilder<unknown>>();
const tables = new Map<string, RawBuilder<unknown>>();

/**
 * `sql.ref(name)`, built once per name. Kysely parses the name into frozen nodes at every call, and a query's SQL
 * names the same few columns dozens of times: that was about a tenth of building an asset query's statements
 * (bench/data-management-assets.mjs, status + sort). Its builders are immutable, so one serves every statement. For
 * names from modules, not from input.
 */
export function ref(name: string): RawBuilder<unknown> {
  let built = refs.get(name);
  if (!built) {
    built = sql.ref(name);
    if (refs.size < MAX_NAMES) refs.set(name, built);
  }
  return built;
}

/** `sql.table(name)`, built once per name (as ref). */
export function table(name: string): RawBuilder<unknown> {
  let built = tables.get(name);
  if (!built) {
    built = sql.table(name);
    if (tables.size < MAX_NAMES) tables.set(name, built);
  }
  return built;
}

/** A trusted column reference from a resolver (`alias.column`), quoted as identifiers. */
export function columnRef(column: string): RawBuilder<unknown> {
  // A resolver bug, not user input: fail loudly (500) rather than build SQL from it.
  if (!COLUMN_REF.test(column)) throw new Error(`query: invalid column reference ${JSON.stringify(column)}`);
  return ref(column);
}

/** Path segments checked again here, since a resolver may build them from user input. */
export function checkedPath(path: string[]): string[] {
  for (const segment of path) {
    if (!isSafePathSegment(segment)) throw QUERY_ERRORS.invalidProperty('property', 'invalid property path');
  }
  return path;
}

export const TRUE: RawBuilder<SqlBool> = sql<SqlBool>`(1 = 1)`;
export const FALSE: RawBuilder<SqlBool> = sql<SqlBool>`(1 = 0)`;

export function anyOf(parts: RawBuilder<SqlBool>[]): RawBuilder<SqlBool> {
  return parts.length === 0 ? FALSE : balanced(parts, sql` OR `);
}

export function allOf(parts: RawBuilder<SqlBool>[]): RawBuilder<SqlBool> {
  return parts.length === 0 ? TRUE : balanced(parts, sql` AND `);
}

// `a OR b OR c ...` parses into a left-deep tree; SQLite refuses expression trees deeper than 1000. Long lists are
// joined as a balanced tree of groups instead, so depth grows with the logarithm of the count.
const GROUP = 32;

function balanced(parts: RawBuilder<SqlBool>[], joiner: RawBuilder<unknown>): RawBuilder<SqlBool> {
  if (parts.length === 1) return parts[0];
  if (parts.length <= GROUP) return sql<SqlBool>`(${sql.join(parts, joiner)})`;
  const size = Math.ceil(parts.length / GROUP);
  const groups: RawBuilder<SqlBool>[] = [];
  for (let i = 0; i < parts.length; i += size) groups.push(balanced(parts.slice(i, i + size), joiner));
  return balanced(groups, joiner);
}

/** OR of the tests that apply (`compile` answers null for a test that cannot match there); null when none applies. */
export function anyApplicable<T>(
  tests: T[],
  compile: (test: T) => RawBuilder<SqlBool> | null,
): RawBuilder<SqlBool> | null {
  const parts = tests.map(compile).filter((p): p is RawBuilder<SqlBool> => p !== null);
  return parts.length === 0 ? null : anyOf(parts);
}

/** The document of the outer item of a value index source, read by its key (for the values the index cannot give). */
export function indexedDocument(source: { itemsTable: string; alias: string }): RawBuilder<unknown> {
  return sql`(SELECT q__d.doc FROM ${table(source.itemsTable)} q__d WHERE q__d.seq = ${ref(`${source.alias}.seq`)})`;
}

/** The document column of the item aliased `alias` of a value index source, as the dialects read it (JsonColumn). */
export function documentOf(source: { documentText?: boolean }, alias: string): JsonColumn {
  return { column: `${alias}.doc`, text: source.documentText === true };
}

/** SQL comparison operators come from a closed set, never from input. */
export function opSql(op: '=' | '>' | '>=' | '<' | '<='): RawBuilder<unknown> {
  return sql.raw(({ '=': '=', '>': '>', '>=': '>=', '<': '<', '<=': '<=' } as const)[op]);
}

export function directionSql(direction: 'ASC' | 'DESC'): RawBuilder<unknown> {
  return sql.raw(direction === 'DESC' ? 'DESC' : 'ASC');
}

const STRING_KEY = /^[a-z_][a-z0-9_]*$/;

/** The column of value row `row` that orders strings (IndexedTarget.stringKey), checked as a plain identifier. */
export function stringKeyOf(row: string, key = 'str'): RawBuilder<unknown> {
  if (!STRING_KEY.test(key)) throw new Error(`query: invalid string key column ${JSON.stringify(key)}`);
  return ref(`${row}.${key}`);
}
