// PostgreSQL SQL of the list-query compiler. Values are read as jsonb (`#>` with a text[] parameter) and typed by
// jsonb_typeof; every cast sits behind a CASE guard so a stored value of another shape never raises an error.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { QueryColumnType, QueryDialect } from './dialect.js';
import type { ValueTest } from '../../query/query-ast.js';
import { allOf, anyOf, checkedPath, columnRef, directionSql, FALSE, opSql } from '../../query/sql-parts.js';

const ISO_DATE =
  '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])([T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,9})?)?(Z|z|[+-](0[0-9]|1[0-4]):[0-5][0-9])?)?$';
const HAS_ZONE = '(Z|z|[+-][0-9]{2}:[0-9]{2})$';

/**
 * Epoch milliseconds of an ISO date text, or NULL. The shape is checked by regular expression, the day against the
 * month's length, before any cast; a text without zone is UTC. CASE evaluates its branches in order, AND does not.
 */
function epochMs(text: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(CASE WHEN ${text} ~ ${ISO_DATE} THEN
    CASE WHEN substr(${text}, 1, 4) = '0000' THEN NULL
      WHEN substr(${text}, 9, 2)::int <= extract(day from (make_date(substr(${text}, 1, 4)::int, substr(${text}, 6, 2)::int, 1) + interval '1 month - 1 day'))
      THEN round(extract(epoch from (CASE WHEN length(${text}) > 10 AND ${text} ~ ${HAS_ZONE} THEN ${text}::timestamptz ELSE ${text}::timestamp AT TIME ZONE 'UTC' END)) * 1000)
    END
  END)`;
}

function elementTest(test: ValueTest): RawBuilder<SqlBool> | null {
  const v = sql`q__e.v`;
  const text = sql`(q__e.v #>> '{}')`;
  const isType = (t: string) => sql<SqlBool>`jsonb_typeof(${v}) = ${sql.lit(t)}`;
  switch (test.kind) {
    case 'number':
      return sql<SqlBool>`(CASE WHEN ${isType('number')} THEN ${allOf(test.conds.map((c) => sql<SqlBool>`${text}::numeric ${opSql(c.op)} ${c.value}::numeric`))} ELSE FALSE END)`;
    case 'string':
      return sql<SqlBool>`(CASE WHEN ${isType('string')} THEN ${allOf(test.conds.map((c) => sql<SqlBool>`${text} COLLATE "C" ${opSql(c.op)} ${c.value}::text`))} ELSE FALSE END)`;
    case 'stringCi':
      return sql<SqlBool>`(${isType('string')} AND lower(${text}) = lower(${test.value}::text))`;
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
  const cmp = (left: RawBuilder<unknown>, conds: Array<{ op: '=' | '>' | '>=' | '<' | '<='; value: unknown }>, cast: string) =>
    allOf(conds.map((c) => sql<SqlBool>`${left} ${opSql(c.op)} ${c.value}::${sql.raw(cast)}`));
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
      return type === 'text' ? sql<SqlBool>`lower(${col}) = lower(${test.value}::text)` : null;
    case 'like':
      return type === 'text' ? sql<SqlBool>`${col} ILIKE ${test.pattern}::text ESCAPE '\\'` : null;
  }
}

export const postgresQuery: QueryDialect = {
  jsonAny(column, path, tests) {
    const parts = tests.map(elementTest).filter((p): p is RawBuilder<SqlBool> => p !== null);
    if (parts.length === 0) return FALSE;
    const x = sql`(${columnRef(column)} #> ${checkedPath(path)}::text[])`;
    // A scalar stands for itself, an array for its elements; objects are not values.
    return sql<SqlBool>`EXISTS (SELECT 1 FROM jsonb_array_elements(CASE jsonb_typeof(${x}) WHEN 'array' THEN ${x} WHEN 'object' THEN '[]'::jsonb ELSE jsonb_build_array(${x}) END) AS q__e(v) WHERE ${anyOf(parts)})`;
  },

  columnAny(column, type, tests) {
    const col = columnRef(column);
    const parts = tests.map((t) => columnTest(col, type, t)).filter((p): p is RawBuilder<SqlBool> => p !== null);
    return parts.length === 0 ? FALSE : sql<SqlBool>`COALESCE(${anyOf(parts)}, FALSE)`;
  },

  textLike(target, pattern) {
    const text = target.kind === 'json' ? sql`(${columnRef(target.column)} #> ${checkedPath(target.path)}::text[])::text` : sql`${columnRef(target.column)}::text`;
    return sql<SqlBool>`COALESCE(${text} ILIKE ${pattern}::text ESCAPE '\\', FALSE)`;
  },

  orderBy(target, direction) {
    const dir = directionSql(direction);
    if (target.kind === 'column') {
      const col = columnRef(target.column);
      const key = target.type === 'text' ? sql`${col} COLLATE "C"` : col;
      return [sql`(${col} IS NULL) ASC`, sql`${key} ${dir}`];
    }
    const x = sql`(${columnRef(target.column)} #> ${checkedPath(target.path)}::text[])`;
    return [
      sql`(coalesce(jsonb_typeof(${x}), 'null') = 'null') ASC`,
      sql`(CASE jsonb_typeof(${x}) WHEN 'number' THEN 0 WHEN 'boolean' THEN 0 WHEN 'string' THEN 1 ELSE 2 END) ${dir}`,
      sql`(CASE jsonb_typeof(${x}) WHEN 'number' THEN (${x} #>> '{}')::numeric WHEN 'boolean' THEN (CASE WHEN ${x} = 'true'::jsonb THEN 1 ELSE 0 END) END) ${dir}`,
      sql`(CASE WHEN jsonb_typeof(${x}) = 'string' THEN ${x} #>> '{}' END) COLLATE "C" ${dir}`,
      sql`(CASE WHEN jsonb_typeof(${x}) IN ('object', 'array') THEN ${x}::text END) COLLATE "C" ${dir}`,
    ];
  },
};
