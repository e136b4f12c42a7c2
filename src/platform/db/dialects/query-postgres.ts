// PostgreSQL SQL of the list-query compiler. Values are read as jsonb (`#>` with a text[] parameter) and typed by
// jsonb_typeof; every cast sits behind a CASE guard so a stored value of another shape never raises an error.
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

// Shapes of accepted ISO 8601 texts after digits become 9, a space separator T and `+` `-`: date only, or date-time
// with minutes, seconds, 1-9 fraction digits, and no zone, `Z` or `±HH:MM`. Checking the shape with translate() is
// several times cheaper than a regular expression on PostgreSQL.
const TIMES = ['99:99', '99:99:99', ...Array.from({ length: 9 }, (_, i) => `99:99:99.${'9'.repeat(i + 1)}`)];
const DATE_SHAPES = [
  '9999-99-99',
  ...TIMES.flatMap((t) => ['', 'Z', '-99:99'].map((zone) => `9999-99-99T${t}${zone}`)),
];
// A constant of this file (digits, 9, T, Z, -, : and .), so it is written into the SQL rather than bound each time.
const DATE_SHAPES_SQL = sql.raw(`'{${DATE_SHAPES.join(',')}}'::text[]`);

/**
 * Epoch milliseconds of an ISO date text, or NULL. Shape, then field ranges (month, day of the month, hour, minute,
 * second, offset) are checked before any cast, inside CASE (which evaluates in order; AND does not), so no stored
 * text can raise an error. A text without zone is UTC.
 */
function epochMs(text: RawBuilder<unknown>): RawBuilder<unknown> {
  const t = text;
  const int = (from: number, length: number) => sql`substr(${t}, ${sql.lit(from)}, ${sql.lit(length)})::int`;
  const year = int(1, 4);
  const month = int(6, 2);
  const day = int(9, 2);
  const hasZone = sql`(length(${t}) > 10 AND (right(${t}, 1) = 'Z' OR substr(${t}, length(${t}) - 5, 1) IN ('+', '-')))`;
  const hasOffset = sql`(length(${t}) > 16 AND substr(${t}, length(${t}) - 5, 1) IN ('+', '-'))`;
  return sql`(CASE WHEN translate(${t}, '0123456789 +', '9999999999T-') = ANY(${DATE_SHAPES_SQL}) THEN
    CASE WHEN ${month} NOT BETWEEN 1 AND 12 OR ${day} NOT BETWEEN 1 AND 31 OR ${year} = 0 THEN NULL
      WHEN ${day} > 28 AND ${day} > (CASE ${month} WHEN 2 THEN (CASE WHEN ${year} % 4 = 0 AND (${year} % 100 <> 0 OR ${year} % 400 = 0) THEN 29 ELSE 28 END)
        WHEN 4 THEN 30 WHEN 6 THEN 30 WHEN 9 THEN 30 WHEN 11 THEN 30 ELSE 31 END) THEN NULL
      WHEN length(${t}) > 10 AND (${int(12, 2)} > 23 OR ${int(15, 2)} > 59 OR (substr(${t}, 17, 1) = ':' AND ${int(18, 2)} > 59)) THEN NULL
      WHEN ${hasOffset} AND (substr(${t}, length(${t}) - 4, 2)::int > 14 OR substr(${t}, length(${t}) - 1, 2)::int > 59) THEN NULL
      ELSE round(extract(epoch from (CASE WHEN ${hasZone} THEN ${t}::timestamptz ELSE ${t}::timestamp AT TIME ZONE 'UTC' END)) * 1000)
    END
  END)`;
}

/**
 * The jsonb value at `path` of a document: a jsonb column read directly; a document held as JSON text (storage's,
 * JsonColumn.text) read as `json`, whose cast only checks the text and whose path lookup scans it to the value, and
 * only the value found is parsed into jsonb (parsing the whole document into jsonb, as `doc::jsonb` does, cost a sort
 * on a field outside the index 7.3x its server CPU of a jsonb column).
 */
function valueAt(document: RawBuilder<unknown>, text: boolean | undefined, path: string[]): RawBuilder<unknown> {
  return text
    ? sql`((${document}::json #> ${checkedPath(path)}::text[])::jsonb)`
    : sql`(${document} #> ${checkedPath(path)}::text[])`;
}

/** A test on one jsonb value. */
function elementTest(test: ValueTest, v: RawBuilder<unknown>): RawBuilder<SqlBool> | null {
  const text = sql`(${v} #>> '{}')`;
  const isType = (t: string) => sql<SqlBool>`jsonb_typeof(${v}) = ${sql.lit(t)}`;
  switch (test.kind) {
    case 'number':
      return sql<SqlBool>`(CASE WHEN ${isType('number')} THEN ${allOf(test.conds.map((c) => sql<SqlBool>`${text}::numeric ${opSql(c.op)} ${c.value}::numeric`))} ELSE FALSE END)`;
    case 'string':
      return sql<SqlBool>`(CASE WHEN ${isType('string')} THEN ${allOf(test.conds.map((c) => sql<SqlBool>`${text} COLLATE "C" ${opSql(c.op)} ${c.value}::text`))} ELSE FALSE END)`;
    case 'stringCi':
      return sql<SqlBool>`(${isType('string')} AND lower(${text} COLLATE "C") = lower(${test.value}::text COLLATE "C"))`;
    case 'like':
      return sql<SqlBool>`(${isType('string')} AND ${text} ILIKE ${test.pattern}::text ESCAPE '\\')`;
    case 'boolean':
      return sql<SqlBool>`${v} = ${sql.lit(test.value ? 'true' : 'false')}::jsonb`;
    case 'instant':
      if (test.columnsOnly) return null;
      return sql<SqlBool>`(CASE WHEN ${isType('string')} THEN ${allOf(test.conds.map((c) => sql<SqlBool>`${epochMs(text)} ${opSql(c.op)} ${c.value}::numeric`))} ELSE FALSE END)`;
    case 'present':
      return sql<SqlBool>`${v} <> 'null'::jsonb`;
  }
}

function columnTest(col: RawBuilder<unknown>, type: QueryColumnType, test: ValueTest): RawBuilder<SqlBool> | null {
  const cmp = (
    left: RawBuilder<unknown>,
    conds: Array<{ op: '=' | '>' | '>=' | '<' | '<='; value: unknown }>,
    cast: string,
  ) => allOf(conds.map((c) => sql<SqlBool>`${left} ${opSql(c.op)} ${c.value}::${sql.raw(cast)}`));
  switch (test.kind) {
    case 'present':
      return sql<SqlBool>`${col} IS NOT NULL`;
    case 'number':
      return type === 'number' ? cmp(col, test.conds, 'numeric') : null;
    case 'boolean':
      return type === 'boolean' ? sql<SqlBool>`${col} = ${test.value}::boolean` : null;
    case 'instant':
      if (type === 'datetime') return cmp(col, test.conds, 'numeric');
      return type === 'text' ? cmp(epochMs(sql`${col}::text`), test.conds, 'numeric') : null;
    case 'string':
      return type === 'text' ? cmp(sql`${col} COLLATE "C"`, test.conds, 'text') : null;
    case 'stringCi':
      return type === 'text' ? sql<SqlBool>`lower(${col} COLLATE "C") = lower(${test.value}::text COLLATE "C")` : null;
    case 'like':
      return type === 'text' ? sql<SqlBool>`${col} ILIKE ${test.pattern}::text ESCAPE '\\'` : null;
  }
}

/** An InitPlan's value: the planner estimates with it as with a parameter in a generic plan, in every plan. */
const genericValue = (value: unknown, type: 'text' | 'float8'): RawBuilder<unknown> =>
  sql`(SELECT ${value}::${sql.raw(type)})`;

/**
 * A test on one value index row (value-index.ts): numbers and booleans in `num` (double precision), strings in `str`
 * (collation "C": code point order, as documents compare). `num IS NULL` keeps the lookup on the index's
 * (path, t, num, str) prefix. Exact rows only; long strings are read from the document.
 */
function indexRowTest(test: ValueTest, v: string, generic: boolean): RawBuilder<SqlBool> | null {
  const bound = (c: { op: string; value: unknown }, type: 'text' | 'float8') =>
    generic && c.op !== '=' ? genericValue(c.value, type) : sql`${c.value}::${sql.raw(type)}`;
  const t = ref(`${v}.t`);
  const num = ref(`${v}.num`);
  const str = ref(`${v}.str`);
  const isString = sql<SqlBool>`${t} = ${sql.lit(K.string)} AND ${num} IS NULL`;
  switch (test.kind) {
    case 'number':
      return allOf([
        sql<SqlBool>`${t} = ${sql.lit(K.number)}`,
        ...test.conds.map((c) => sql<SqlBool>`${num} ${opSql(c.op)} ${bound(c, 'float8')}`),
      ]);
    case 'string':
      return allOf([isString, ...test.conds.map((c) => sql<SqlBool>`${str} ${opSql(c.op)} ${bound(c, 'text')}`)]);
    case 'stringCi': {
      // Case is folded for ASCII letters only (collation "C"), as SQLite's lower() does, so that both engines answer
      // alike; the strings equal to the value but for case then lie between its ASCII-upper and ASCII-lower forms in
      // code point order: an index range, then the exact test.
      const lowered = sql`lower(${test.value}::text COLLATE "C")`;
      return sql<SqlBool>`(${isString} AND ${str} >= upper(${lowered}) AND ${str} <= ${lowered} AND lower(${str}) = ${lowered})`;
    }
    case 'like':
      return sql<SqlBool>`(${isString} AND ${str} ILIKE ${test.pattern}::text ESCAPE '\\')`;
    case 'boolean':
      return sql<SqlBool>`(${t} = ${sql.lit(K.boolean)} AND ${num} = ${sql.lit(test.value ? 1 : 0)})`;
    case 'instant':
      if (test.columnsOnly) return null;
      return allOf([
        isString,
        ...test.conds.map((c) => sql<SqlBool>`${epochMs(str)} ${opSql(c.op)} ${c.value}::numeric`),
      ]);
    case 'present':
      return sql<SqlBool>`${t} IN (${sql.lit(K.number)}, ${sql.lit(K.string)}, ${sql.lit(K.boolean)}, ${sql.lit(K.elementCompound)}, ${sql.lit(K.longString)})`;
  }
}

/**
 * orderBy's five keys as one, for a value read from a document held as text: every key of the five read the value
 * again, and each read scans the document's text, where a jsonb column's costs a lookup. The value is read once a
 * row (OFFSET 0 keeps it one) and the keys compare as the fields of one row, in order: null fields greater than
 * others, as the separate keys' default NULLS LAST (ASC) and FIRST (DESC); strings as UTF-8 bytes, which is COLLATE
 * "C"'s order; whether the value is missing first (so that missing values come last in both directions, negated for
 * DESC).
 */
function textDocumentOrder(value: RawBuilder<unknown>, direction: 'ASC' | 'DESC'): RawBuilder<unknown> {
  const k = jsonSortKeys(sql`q__o.x`);
  return sql`(SELECT ROW(
      ${direction === 'ASC' ? k.missing : sql`NOT ${k.missing}`}, ${k.rank}, ${k.num},
      convert_to(${k.str}, 'UTF8'), convert_to(${k.compound}, 'UTF8'))
    FROM (SELECT ${value} AS x OFFSET 0) AS q__o) ${directionSql(direction)}`;
}

/** The keys orderBy sorts a jsonb value `x` by: missing first or not, its kind, as a number, as a string, as JSON. */
function jsonSortKeys(x: RawBuilder<unknown>) {
  return {
    missing: sql`(coalesce(jsonb_typeof(${x}), 'null') = 'null')`,
    rank: sql`(CASE jsonb_typeof(${x}) WHEN 'number' THEN 0 WHEN 'boolean' THEN 0 WHEN 'string' THEN 1 ELSE 2 END)`,
    num: sql`(CASE jsonb_typeof(${x}) WHEN 'number' THEN (${x} #>> '{}')::numeric WHEN 'boolean' THEN (CASE WHEN ${x} = 'true'::jsonb THEN 1 ELSE 0 END) END)`,
    str: sql`(CASE WHEN jsonb_typeof(${x}) = 'string' THEN ${x} #>> '{}' END)`,
    compound: sql`(CASE WHEN jsonb_typeof(${x}) IN ('object', 'array') THEN ${x}::text END)`,
  };
}

export const postgresQuery: QueryDialect = {
  indexMembership: 'exists',
  probeSeeksPath: false,

  indexTests(alias, tests, generic = false) {
    return anyApplicable(tests, (t) => indexRowTest(t, alias, generic));
  },

  genericValue,

  indexedOrderBy(target, row, direction, absent) {
    const dir = directionSql(direction);
    // The value at the path, read in the document's subquery (a document held as text is parsed there, once a read).
    const doc = indexedDocument(target.source);
    const x = valueAt(doc, target.source.documentText, target.path);
    const t = ref(`${row}.t`);
    // The keys of `orderBy` over the document, from the index row where the item has an exact row at the path;
    // otherwise (missing, an object or an array, a long string, an item that is not indexed and so has no rows) from
    // the document, read only then, and not where the value is known absent (each key read it again: a text
    // document parsed five times an item, a sort on a path most items lack 4x the server's CPU).
    // Never NULL (no row at the path: false), since NOT of it is used too.
    const exact = sql`coalesce(${t} IN (${sql.lit(K.number)}, ${sql.lit(K.string)}, ${sql.lit(K.boolean)}), FALSE)`;
    return [
      sql`(CASE WHEN ${exact} THEN FALSE WHEN ${absent} THEN TRUE ELSE coalesce(jsonb_typeof(${x}), 'null') = 'null' END) ASC`,
      sql`(CASE WHEN ${exact} THEN (CASE ${t} WHEN ${sql.lit(K.string)} THEN 1 ELSE 0 END) WHEN ${absent} THEN 2
        ELSE (CASE jsonb_typeof(${x}) WHEN 'number' THEN 0 WHEN 'boolean' THEN 0 WHEN 'string' THEN 1 ELSE 2 END) END) ${dir}`,
      sql`(CASE WHEN ${exact} THEN ${ref(`${row}.num`)} WHEN ${absent} THEN NULL
        ELSE (CASE jsonb_typeof(${x}) WHEN 'number' THEN (${x} #>> '{}')::float8 WHEN 'boolean' THEN (CASE WHEN ${x} = 'true'::jsonb THEN 1 ELSE 0 END) END) END) ${dir}`,
      sql`(CASE WHEN ${exact} THEN ${stringKeyOf(row, target.stringKey)} WHEN ${absent} THEN NULL WHEN jsonb_typeof(${x}) = 'string' THEN ${x} #>> '{}' END) COLLATE "C" ${dir}`,
      sql`(CASE WHEN ${exact} OR ${absent} THEN NULL WHEN jsonb_typeof(${x}) IN ('object', 'array') THEN ${x}::text END) COLLATE "C" ${dir}`,
    ];
  },

  jsonAny(document, path, tests) {
    const x = sql`q__s.x`;
    const on = (v: RawBuilder<unknown>) =>
      tests.map((t) => elementTest(t, v)).filter((p): p is RawBuilder<SqlBool> => p !== null);
    const scalar = on(x);
    if (scalar.length === 0) return FALSE;
    // The value is extracted from the document once per row (OFFSET 0 keeps the planner from substituting the
    // path lookup into every reference). A scalar is tested directly; an array by its elements; an object is no
    // value; a missing path is NULL and fails every test.
    return sql<SqlBool>`EXISTS (SELECT 1 FROM (SELECT ${valueAt(columnRef(document.column), document.text, path)} AS x OFFSET 0) AS q__s
      WHERE CASE jsonb_typeof(${x})
        WHEN 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements(${x}) AS q__e(v) WHERE ${anyOf(on(sql`q__e.v`))})
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
        ? target.text && target.path.length === 0
          ? // The whole document held as JSON text: that text, as SQLite matches its `-> '$'`.
            columnRef(target.column)
          : sql`${valueAt(columnRef(target.column), target.text, target.path)}::text`
        : sql`${columnRef(target.column)}::text`;
    return sql<SqlBool>`COALESCE(${text} ILIKE ${pattern}::text ESCAPE '\\', FALSE)`;
  },

  orderBy(target, direction) {
    const dir = directionSql(direction);
    if (target.kind === 'column') {
      const col = columnRef(target.column);
      const key = target.type === 'text' ? sql`${col} COLLATE "C"` : col;
      return [sql`(${col} IS NULL) ASC`, sql`${key} ${dir}`];
    }
    const x = valueAt(columnRef(target.column), target.text, target.path);
    if (target.text) return [textDocumentOrder(x, direction)];
    const k = jsonSortKeys(x);
    return [
      sql`${k.missing} ASC`,
      sql`${k.rank} ${dir}`,
      sql`${k.num} ${dir}`,
      sql`${k.str} COLLATE "C" ${dir}`,
      sql`${k.compound} COLLATE "C" ${dir}`,
    ];
  },
};
