// Predicates and sorts on values a value index covers (value-index.ts): the item's key is among the index rows that
// pass the test, plus the items whose document must be read because the index cannot answer them (a string beyond
// the indexed length at that path, or a document that is not indexed). The cost follows the matching index rows,
// not the documents the caller may read.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { ListQueryDialect } from './query-dialect.js';
import type { IndexedTarget, ValueIndexSource, ValueTest } from './query-ast.js';
import { allOf, checkedPath, documentOf, FALSE, ref, stringKeyOf, table } from './sql-parts.js';
import { VALUE_FORM, VALUE_KIND } from './value-index.js';

/** A LEFT JOIN the ORDER BY of a sort needs: the index row of the value at the path itself. */
export interface SortJoin {
  table: string;
  alias: string;
  on: RawBuilder<SqlBool>;
}

/**
 * `set`: the keys of the matching index rows, probed per item; `exists`: probes of the item's own rows in its scope;
 * `byKey`: probes of the item's own rows by its key alone, for a condition tested item by item in a walk of a sort
 * index (no plan can read every match instead).
 */
export type IndexMembership = 'set' | 'exists' | 'byKey';

const TABLE_NAME = /^[a-z_][a-z0-9_]*$/;
const ALIAS = /^[a-z_][a-z0-9_]*$/;

export function checkedSource(source: ValueIndexSource): ValueIndexSource {
  // From a module, not from input: fail loudly rather than build SQL from a wrong name.
  const names = [
    source.itemsTable,
    source.valuesTable,
    ...source.scope.map(([c]) => c),
    ...(source.keysTable ? [source.keysTable] : []),
    ...(source.counts ? [source.counts] : []),
    ...(source.termCounts ? [source.termCounts] : []),
  ];
  if (!names.every((n) => TABLE_NAME.test(n)) || !ALIAS.test(source.alias)) {
    throw new Error('query: invalid value index source');
  }
  if (source.plain && !(source.keysTable && source.keyForms))
    throw new Error('query: plain values need the forms of the keys table');
  return source;
}

/**
 * The condition under which a compile for plain values (ValueIndexSource.plain) answers what the general compile
 * answers: no path it assumed plain has ever held an array or a long string (the keys table's forms, only ever added
 * to), and no item of the scope lacks index rows (a partial index keeps those). Evaluated once per statement, in the
 * statement's own snapshot; undefined when the compile assumed nothing.
 */
export function plainCheck(source: ValueIndexSource): RawBuilder<SqlBool> | undefined {
  const plain = source.plain;
  if (!plain?.allIndexed) return undefined;
  checkedSource(source);
  const unindexed = sql<SqlBool>`NOT EXISTS (SELECT 1 FROM ${table(source.itemsTable)} q__u WHERE ${scopeOf(source, 'q__u')} AND q__u.idx <> 1)`;
  if (plain.paths.size === 0) return unindexed;
  const notPlain = sql.lit(VALUE_FORM.array | VALUE_FORM.longString);
  return sql<SqlBool>`${unindexed} AND NOT EXISTS (SELECT 1 FROM ${table(source.keysTable!)} q__p WHERE ${scopeOf(source, 'q__p')}
    AND q__p.path IN (${sql.join([...plain.paths].sort())}) AND (q__p.forms & ${notPlain}) <> 0)`;
}

/**
 * Compiling for plain values (ValueIndexSource.plain): records what the SQL about to be built assumes (that every item
 * is indexed, and that `path`, if any, holds no arrays and no long strings); false when not compiling for them.
 */
export function assumePlain(source: ValueIndexSource, path?: string): boolean {
  const plain = source.plain;
  if (!plain) return false;
  plain.allIndexed = true;
  if (path !== undefined) plain.paths.add(path);
  return true;
}

/** How a compile writes a bound value of the scope or the path (QueryContext.genericValues). */
export type BoundValue = (value: unknown) => unknown;
const asIs: BoundValue = (value) => value;

export function scopeOf(source: ValueIndexSource, alias: string, bound: BoundValue = asIs): RawBuilder<SqlBool> {
  return allOf(source.scope.map(([column, value]) => sql<SqlBool>`${ref(`${alias}.${column}`)} = ${bound(value)}`));
}

/**
 * The value rows (aliased `alias`) of the scope at `path`: by the scope columns and the path, or by the one key that
 * names both (`keysTable`), looked up once per statement.
 */
export function rowsAtPath(
  source: ValueIndexSource,
  alias: string,
  path: string,
  bound: BoundValue = asIs,
): RawBuilder<SqlBool> {
  if (!source.keysTable)
    return sql<SqlBool>`${scopeOf(source, alias, bound)} AND ${ref(`${alias}.path`)} = ${bound(path)}`;
  return sql<SqlBool>`${ref(`${alias}.vk`)} = ${pathKey(source, source.keysTable, path)}`;
}

/** The key of the scope's `path` in the keys table, looked up once per statement. */
export function pathKey(source: ValueIndexSource, keysTable: string, path: string): RawBuilder<unknown> {
  return sql`(SELECT q__k.id FROM ${table(keysTable)} q__k WHERE ${scopeOf(source, 'q__k')} AND q__k.path = ${path})`;
}

/**
 * The value rows (aliased `alias`) of the item `key` at `path`; `scoped` names the scope too where rows have it. With a
 * keys table, the key of the path is tested on each of the item's rows (`vk + 0`), not sought, unless `seekPath`: only
 * an index that starts with the item can then serve the probe. The lookup index starts with the path's key and ends with
 * the item, and a planner that took it for a probe that also names the value (PostgreSQL on a store's first
 * statistics) read every row of the value once per item probed (a walk over 10,000 items filtered on one status: 1 ->
 * 32 ms a page). A sort's join names no value, so the lookup index offers it the path's key alone, against the item,
 * the path and `elem` in the item index: it seeks the path (with `vk + 0` it tested each of an item's rows; PostgreSQL,
 * owner (1%) + sort at 1,000,000 items, sorting 5,000 matches: 55 -> 48 ms).
 */
export function itemRowsAtPath(
  source: ValueIndexSource,
  alias: string,
  key: RawBuilder<unknown>,
  path: string,
  scoped: boolean,
  seekPath = false,
): RawBuilder<SqlBool> {
  const item = sql<SqlBool>`${ref(`${alias}.item_seq`)} = ${key}`;
  if (source.keysTable) {
    const vk = seekPath ? ref(`${alias}.vk`) : sql`(${ref(`${alias}.vk`)} + 0)`;
    return sql<SqlBool>`${item} AND ${vk} = ${pathKey(source, source.keysTable, path)}`;
  }
  return scoped
    ? sql<SqlBool>`${scopeOf(source, alias)} AND ${item} AND ${ref(`${alias}.path`)} = ${path}`
    : sql<SqlBool>`${item} AND ${ref(`${alias}.path`)} = ${path}`;
}

export function indexedAny(
  target: IndexedTarget,
  tests: ValueTest[],
  dialect: ListQueryDialect,
  membership: IndexMembership = dialect.query.indexMembership,
): RawBuilder<SqlBool> {
  const source = checkedSource(target.source);
  const exact = dialect.query.indexTests('q__v', tests);
  if (!exact) return FALSE;
  const path = checkedPath(target.path).join('.');
  const values = table(source.valuesTable);
  const items = table(source.itemsTable);
  const key = ref(`${source.alias}.seq`);
  const longString = sql.lit(VALUE_KIND.longString);
  if (assumePlain(source, path)) {
    // Compiling for plain values (ValueIndexSource.plain): the index rows alone answer, the statement checks that.
    if (membership === 'set')
      return sql<SqlBool>`(${key} IN (SELECT q__v.item_seq FROM ${values} q__v WHERE ${rowsAtPath(source, 'q__v', path)} AND ${exact}))`;
    const seek = membership === 'byKey' && dialect.query.probeSeeksPath;
    const probe = sql`SELECT 1 FROM ${values} q__v WHERE ${itemRowsAtPath(source, 'q__v', key, path, membership === 'exists', seek)} AND ${exact}`;
    // `byKey`: a scalar subquery, which no planner turns into a join. A lone EXISTS in a WHERE is one PostgreSQL pulls up
    // into a semi-join, and a walk's page of 100 then hashed all 25,000 matches of its filter first (1 -> 12.8 ms).
    return membership === 'byKey' ? sql<SqlBool>`((${probe} LIMIT 1) IS NOT NULL)` : sql<SqlBool>`EXISTS (${probe})`;
  }
  if (membership !== 'set') {
    // One probe of the item's rows at the path per item: the plan cannot turn into a scan of the index per item,
    // whatever the statistics say (PostgreSQL). `byKey` names the item's key alone (unique across scopes; the item
    // itself is of the scope): then no value-major index can serve the probe, so the planner cannot turn the probes
    // into a semi-join driven by the filter's matches either, which reads every match where a walk in sort order
    // wants to stop after a page. With the scope, a selective filter over many items may still be answered that way.
    const doc = dialect.query.jsonAny(documentOf(source, source.alias), target.path, tests);
    return sql<SqlBool>`(EXISTS (SELECT 1 FROM ${values} q__v WHERE ${itemRowsAtPath(source, 'q__v', key, path, membership === 'exists')}
        AND (${exact} OR (q__v.t = ${longString} AND ${doc})))
      OR (${ref(`${source.alias}.idx`)} <> 1 AND ${doc}))`;
  }
  // The set of matching keys, built once per statement and probed per item (SQLite), or walked when it is smaller.
  const doc = dialect.query.jsonAny(documentOf(source, 'q__d'), target.path, tests);
  return sql<SqlBool>`(${key} IN (
    SELECT q__v.item_seq FROM ${values} q__v WHERE ${rowsAtPath(source, 'q__v', path)} AND ${exact}
    UNION ALL
    SELECT q__d.seq FROM ${items} q__d WHERE q__d.seq IN (
      SELECT q__v.item_seq FROM ${values} q__v WHERE ${rowsAtPath(source, 'q__v', path)} AND q__v.t = ${longString}) AND ${doc}
    UNION ALL
    SELECT q__d.seq FROM ${items} q__d WHERE ${scopeOf(source, 'q__d')} AND q__d.idx <> 1 AND ${doc}))`;
}

/** The join and ORDER BY items of a sort on an indexed value; `n` numbers the sort's join alias. */
export function indexedSort(
  target: IndexedTarget,
  direction: 'ASC' | 'DESC',
  n: number,
  dialect: ListQueryDialect,
): { join: SortJoin; orderBy: RawBuilder<unknown>[] } {
  const source = checkedSource(target.source);
  const alias = `q__s${n}`;
  const on = allOf([
    itemRowsAtPath(source, alias, ref(`${source.alias}.seq`), checkedPath(target.path).join('.'), true, true),
    sql<SqlBool>`${ref(`${alias}.elem`)} = 0`,
  ]);
  return {
    join: { table: source.valuesTable, alias, on },
    orderBy: dialect.query.indexedOrderBy(target, alias, direction, absentAt(source, alias, target.path)),
  };
}

/**
 * Where the sort's row `alias` is missing, that the item holds no value at the path (missing or null), known without
 * its document: every item of the scope is indexed (so each value at the path itself has a row there, but objects and
 * arrays) and the path never held an object or an array (the keys table's forms, only ever added to). Both are read
 * once per statement. FALSE where the source keeps no forms.
 */
function absentAt(source: ValueIndexSource, alias: string, path: string[]): RawBuilder<SqlBool> {
  if (!source.keysTable || !source.keyForms) return FALSE;
  const compound = sql.lit(VALUE_FORM.array | VALUE_FORM.object);
  return sql<SqlBool>`(${ref(`${alias}.t`)} IS NULL
    AND NOT EXISTS (SELECT 1 FROM ${table(source.itemsTable)} q__u WHERE ${scopeOf(source, 'q__u')} AND q__u.idx <> 1)
    AND NOT EXISTS (SELECT 1 FROM ${table(source.keysTable)} q__f WHERE ${scopeOf(source, 'q__f')}
      AND q__f.path = ${checkedPath(path).join('.')} AND (q__f.forms & ${compound}) <> 0))`;
}

/**
 * The index rows of one kind of exact scalar at a path and their order, for a walk of a sort's index rows in the sort's
 * order (the general plan's order where every value at the path is of that kind). Strings have no number (`num IS
 * NULL`, said so that the lookup index's order by str is usable; and num named first in the ORDER BY, all NULL, so that
 * PostgreSQL sees the index's order too), or sort by another key column of the rows (`stringKey`, from a partial index
 * on the string kind); numbers and booleans sort by num.
 */
export function walkedKind(
  kind: number,
  stringKey: string,
  direction: 'ASC' | 'DESC',
): { rows(alias: string): RawBuilder<SqlBool>; order(alias: string): RawBuilder<unknown> } {
  const dir = sql.raw(direction === 'DESC' ? 'DESC' : 'ASC');
  const column = (alias: string, name: string) => ref(`${alias}.${name}`);
  const byStr = kind === VALUE_KIND.string && stringKey === 'str';
  return {
    rows: (alias) =>
      byStr
        ? sql<SqlBool>`${column(alias, 't')} = ${sql.lit(kind)} AND ${column(alias, 'num')} IS NULL`
        : sql<SqlBool>`${column(alias, 't')} = ${sql.lit(kind)}`,
    order: (alias) =>
      kind !== VALUE_KIND.string
        ? sql`${column(alias, 'num')} ${dir}`
        : byStr
          ? sql`${column(alias, 'num')} ${dir}, ${column(alias, 'str')} ${dir}`
          : sql`${stringKeyOf(alias, stringKey)} ${dir}`,
  };
}
