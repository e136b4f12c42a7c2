// SQLite SQL of the list-query compiler. json_each yields typed values (type column: integer, real, text,
// true, false, null, array, object); dates are read with unixepoch() behind a shape guard, never raising.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { QueryColumnType, QueryDialect } from './dialect.js';
import type { ValueTest } from '../../query/query-ast.js';
import { VALUE_KIND as K } from '../../query/value-index.js';
import {
  allOf,
  anyOf,
  checkedPath,
  columnRef,
  directionSql,
  FALSE,
  opSql,
  anyApplicable,
  indexedDocument,
  ref,
  stringKeyOf,
} from '../../query/sql-parts.js';

/** `$."a"."b"`: keys quoted, so dots, colons and spaces inside a key are safe (quotes and backslashes are refused). */
export function sqliteJsonPath(path: string[]): string {
  return (
    '$' +
    checkedPath(path)
      .map((s) => `."${s}"`)
      .join('')
  );
}

/** Epoch milliseconds of an ISO date text, or NULL (also for texts such as 'now' that SQLite would accept). */
function epochMs(text: RawBuilder<unknown>): RawBuilder<unknown> {
  // date() rolls 2026-02-30 over to 03-02; comparing it with the text refuses such days. Hour 24, year 0 and a
  // lower-case z, which SQLite would read, are refused as PostgreSQL refuses them.
  return sql`(CASE WHEN ${text} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' AND date(substr(${text}, 1, 10)) = substr(${text}, 1, 10)
      AND substr(${text}, 1, 4) <> '0000' AND substr(${text}, 12, 2) < '24' AND ${text} NOT GLOB '*z'
    THEN round(unixepoch(${text}, 'subsec') * 1000) END)`;
}

/** A test on one JSON value, given its json_type() and its SQL value (json_extract() or json_each's value). */
function elementTest(
  test: ValueTest,
  type: RawBuilder<unknown>,
  value: RawBuilder<unknown>,
): RawBuilder<SqlBool> | null {
  switch (test.kind) {
    case 'number':
      return allOf([
        sql<SqlBool>`${type} IN ('integer', 'real')`,
        ...test.conds.map((c) => sql<SqlBool>`${value} ${opSql(c.op)} ${c.value}`),
      ]);
    case 'string':
      return allOf([
        sql<SqlBool>`${type} = 'text'`,
        ...test.conds.map((c) => sql<SqlBool>`${value} ${opSql(c.op)} ${c.value}`),
      ]);
    case 'stringCi':
      return sql<SqlBool>`(${type} = 'text' AND lower(${value}) = lower(${test.value}))`;
    case 'like':
      return sql<SqlBool>`(${type} = 'text' AND lower(${value}) LIKE lower(${test.pattern}) ESCAPE '\\')`;
    case 'boolean':
      return test.value ? sql<SqlBool>`${type} = 'true'` : sql<SqlBool>`${type} = 'false'`;
    case 'instant':
      if (test.columnsOnly) return null;
      return allOf([
        sql<SqlBool>`${type} = 'text'`,
        ...test.conds.map((c) => sql<SqlBool>`${epochMs(value)} ${opSql(c.op)} ${c.value}`),
      ]);
    case 'present':
      return sql<SqlBool>`${type} <> 'null'`;
  }
}

function columnTest(col: RawBuilder<unknown>, type: QueryColumnType, test: ValueTest): RawBuilder<SqlBool> | null {
  const cmp = (left: RawBuilder<unknown>, conds: Array<{ op: '=' | '>' | '>=' | '<' | '<='; value: unknown }>) =>
    allOf(conds.map((c) => sql<SqlBool>`${left} ${opSql(c.op)} ${c.value}`));
  switch (test.kind) {
    case 'present':
      return sql<SqlBool>`${col} IS NOT NULL`;
    case 'number':
      return type === 'number' ? cmp(col, test.conds) : null;
    case 'boolean':
      return type === 'boolean' ? sql<SqlBool>`${col} = ${test.value ? 1 : 0}` : null;
    case 'instant':
      if (type === 'datetime') return cmp(col, test.conds);
      return type === 'text' ? cmp(epochMs(col), test.conds) : null;
    case 'string':
      return type === 'text' ? cmp(col, test.conds) : null;
    case 'stringCi':
      return type === 'text' ? sql<SqlBool>`lower(${col}) = lower(${test.value})` : null;
    case 'like':
      return type === 'text' ? sql<SqlBool>`lower(${col}) LIKE lower(${test.pattern}) ESCAPE '\\'` : null;
  }
}

/** The string with its ASCII letters in one case (as SQLite's lower() and upper() change them). */
function asciiCase(text: string, to: 'upper' | 'lower'): string {
  return to === 'upper'
    ? text.replace(/[a-z]+/g, (m) => m.toUpperCase())
    : text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/**
 * A test on one value index row (value-index.ts): numbers and booleans in `num`, strings in `str` (`num IS NULL` keeps
 * the lookup on the index's (path, t, num, str) prefix). Exact rows only; long strings are read from the document.
 */
function indexRowTest(test: ValueTest, v: string): RawBuilder<SqlBool> | null {
  const t = ref(`${v}.t`);
  const num = ref(`${v}.num`);
  const str = ref(`${v}.str`);
  const isString = sql<SqlBool>`${t} = ${sql.lit(K.string)} AND ${num} IS NULL`;
  switch (test.kind) {
    case 'number':
      return allOf([
        sql<SqlBool>`${t} = ${sql.lit(K.number)}`,
        ...test.conds.map((c) => sql<SqlBool>`${num} ${opSql(c.op)} ${c.value}`),
      ]);
    case 'string':
      return allOf([isString, ...test.conds.map((c) => sql<SqlBool>`${str} ${opSql(c.op)} ${c.value}`)]);
    case 'stringCi':
      // lower() folds ASCII letters only, so the strings equal to the value but for case lie between its ASCII-upper
      // and ASCII-lower forms in code point order (upper before lower): a range of the index, then the exact test.
      return sql<SqlBool>`(${isString} AND ${str} >= ${asciiCase(test.value, 'upper')} AND ${str} <= ${asciiCase(test.value, 'lower')} AND lower(${str}) = lower(${test.value}))`;
    case 'like':
      return sql<SqlBool>`(${isString} AND lower(${str}) LIKE lower(${test.pattern}) ESCAPE '\\')`;
    case 'boolean':
      return sql<SqlBool>`(${t} = ${sql.lit(K.boolean)} AND ${num} = ${test.value ? 1 : 0})`;
    case 'instant':
      if (test.columnsOnly) return null;
      return allOf([isString, ...test.conds.map((c) => sql<SqlBool>`${epochMs(str)} ${opSql(c.op)} ${c.value}`)]);
    case 'present':
      return sql<SqlBool>`${t} IN (${sql.lit(K.number)}, ${sql.lit(K.string)}, ${sql.lit(K.boolean)}, ${sql.lit(K.elementCompound)}, ${sql.lit(K.longString)})`;
  }
}

/** json_type() as the sort rank of `orderBy`: numbers and booleans, then strings, then arrays and objects. */
const SORT_RANK = (type: RawBuilder<unknown>) =>
  sql`(CASE ${type} WHEN 'integer' THEN 0 WHEN 'real' THEN 0 WHEN 'true' THEN 0 WHEN 'false' THEN 0 WHEN 'text' THEN 1 ELSE 2 END)`;

export const sqliteQuery: QueryDialect = {
  indexMembership: 'set',
  probeSeeksPath: true,

  indexTests(alias, tests) {
    return anyApplicable(tests, (t) => indexRowTest(t, alias));
  },

  genericValue: (value) => sql`${value}`,

  // `absent` unused: SQLite reads a document's value by json_extract over its text, as cheap as before storage-014.
  indexedOrderBy(target, row, direction) {
    const dir = directionSql(direction);
    const doc = indexedDocument(target.source);
    const p = sqliteJsonPath(target.path);
    const t = ref(`${row}.t`);
    // From the index row where the item has an exact row at the path; otherwise (missing, an object or an array, a
    // long string, an item that is not indexed and so has no rows) from the document, read only then.
    const exact = sql`${t} IN (${sql.lit(K.number)}, ${sql.lit(K.string)}, ${sql.lit(K.boolean)})`;
    return [
      sql`(CASE WHEN ${exact} THEN 0 ELSE json_extract(${doc}, ${p}) IS NULL END) ASC`,
      sql`(CASE WHEN ${exact} THEN (CASE ${t} WHEN ${sql.lit(K.string)} THEN 1 ELSE 0 END) ELSE ${SORT_RANK(sql`json_type(${doc}, ${p})`)} END) ${dir}`,
      sql`(CASE WHEN ${exact} THEN (CASE ${t} WHEN ${sql.lit(K.string)} THEN ${stringKeyOf(row, target.stringKey)} ELSE ${ref(`${row}.num`)} END) ELSE json_extract(${doc}, ${p}) END) ${dir}`,
    ];
  },

  // SQLite's JSON functions read JSON text: a document column is text whatever JsonColumn.text says.
  jsonAny(document, path, tests) {
    const col = columnRef(document.column);
    const p = sqliteJsonPath(path);
    const on = (type: RawBuilder<unknown>, value: RawBuilder<unknown>) =>
      tests.map((t) => elementTest(t, type, value)).filter((x): x is RawBuilder<SqlBool> => x !== null);
    const scalar = on(sql`json_type(${col}, ${p})`, sql`json_extract(${col}, ${p})`);
    if (scalar.length === 0) return FALSE;
    const element = on(sql`q__e.type`, sql`q__e.value`);
    // A scalar is tested directly (the common case, no table function); an array by its elements; an object is
    // no value; a missing path has type NULL and fails every test.
    return sql<SqlBool>`(CASE json_type(${col}, ${p})
      WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each(${col}, ${p}) AS q__e WHERE ${anyOf(element)})
      WHEN 'object' THEN FALSE
      ELSE COALESCE(${anyOf(scalar)}, FALSE) END)`;
  },

  columnAny(column, type, tests) {
    const col = columnRef(column);
    const parts = tests.map((t) => columnTest(col, type, t)).filter((p): p is RawBuilder<SqlBool> => p !== null);
    return parts.length === 0 ? FALSE : sql<SqlBool>`COALESCE(${anyOf(parts)}, FALSE)`;
  },

  textLike(target, pattern) {
    const text =
      target.kind === 'json'
        ? sql`(${columnRef(target.column)} -> ${sqliteJsonPath(target.path)})`
        : sql`CAST(${columnRef(target.column)} AS TEXT)`;
    return sql<SqlBool>`COALESCE(lower(${text}) LIKE lower(${pattern}) ESCAPE '\\', FALSE)`;
  },

  orderBy(target, direction) {
    const dir = directionSql(direction);
    if (target.kind === 'column') {
      const col = columnRef(target.column);
      return [sql`(${col} IS NULL) ASC`, sql`${col} ${dir}`];
    }
    const col = columnRef(target.column);
    const p = sqliteJsonPath(target.path);
    return [
      sql`(json_extract(${col}, ${p}) IS NULL) ASC`,
      sql`${SORT_RANK(sql`json_type(${col}, ${p})`)} ${dir}`,
      sql`json_extract(${col}, ${p}) ${dir}`,
    ];
  },
};
