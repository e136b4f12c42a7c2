// The SQL of a list's walk (ListWalks.page): the rows it walks in the list's order (a sort path's index rows, or
// the store's items in creation order, readable ones only), the statement that keeps those passing the list's
// condition up to the page, with the page's documents, and the store's change count read with it.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { changeCount, type Dialect } from '../../platform/db/dialects/dialect.js';
import { walkedKind } from '../../platform/query/index.js';
import { readerSets, type StoreScope } from './store-scope.js';
import { WALKED_KEYS, type WalkPlan } from './store-list-plan.js';
import { ArrayColumns, ITEM_TEXT_COLUMNS, itemTextColumns } from './store-list-reads.js';

/** Rows a walk reads in the list's order (`seq` and the sort's columns), and that order ahead of `seq`, if any. */
export interface WalkedRows {
  key: string;
  rows: RawBuilder<unknown>;
  columns: string[];
  order: (alias: string) => RawBuilder<unknown> | undefined;
}

/** 1 where the plan's plain values hold (or it assumed none), else 0: a column of every statement of a list. */
export const plainColumn = (plain: RawBuilder<SqlBool> | undefined): RawBuilder<number> =>
  plain ? sql<number>`(CASE WHEN ${plain} THEN 1 ELSE 0 END)` : sql<number>`1`;

/**
 * The walk's page (rows as arrays): the items' documents as JSON text, the plain check, the store's change count, and
 * the walked rows' sort key (`num`, `str`: NULL in a walk in creation order), which tells ties apart (WalkTies).
 */
export const WALKED_PAGE = new ArrayColumns([...ITEM_TEXT_COLUMNS, 'plain', 'changes', 'num', 'str'] as const);

/**
 * How a walk in a sort's order orders the items whose sort values are equal. `seq`: by key, the general plan's order,
 * which SQLite's walk of the lookup index (its rows of a value come in key order, backwards in a descending sort)
 * sorts run by run (`USE TEMP B-TREE FOR LAST TERM OF ORDER BY`: 10,000 items, a walk of 400 rows for a page of 100,
 * about half its CPU). `index`: in whatever order the index gives, unsorted; its page stands only where it shows no
 * two equal sort values (ListWalks checks that, with the rows before and after the page).
 */
export type WalkTies = 'seq' | 'index';

/**
 * The readable index rows of one kind of value at a path, in the sort's order. The reader set is a condition on each
 * walked row, never an index condition (`+ 0`), nor a join (PostgreSQL: an array computed once): else PostgreSQL
 * reads the rows of each set apart and sorts them all (128 -> 0.9 ms).
 */
export function valueRowsInOrder(
  dialect: Dialect,
  scope: StoreScope,
  path: string,
  kind: number,
  direction: 'ASC' | 'DESC',
  rows: number,
  ties: WalkTies,
): Omit<WalkedRows, 'key'> {
  const walked = walkedKind(kind, 'str', direction);
  const order = ties === 'seq' ? sql`${walked.order('s')}, s.item_seq` : walked.order('s');
  return {
    rows: sql`SELECT s.item_seq AS seq, s.num, s.str FROM storage_item_values s
        WHERE s.vk = (SELECT k.id FROM storage_value_keys k WHERE k.tenant_id = ${scope.tenantId} AND k.store_id = ${scope.storeId} AND k.path = ${path})
          AND ${walked.rows('s')} AND s.elem = 0 AND ${dialect.inSubquery(sql`(s.rs + 0)`, readerSets(scope))}
        ORDER BY ${order} LIMIT ${dialect.opaqueLimit(rows)}`,
    columns: ['seq', 'num', 'str'],
    order: walked.order,
  };
}

/** The store's change count (storage_store_changes, kept by triggers: storage-008), one range of its key. */
export function storeChanges(scope: StoreScope): RawBuilder<unknown> {
  return changeCount('storage_store_changes', { tenant_id: scope.tenantId, store_id: scope.storeId });
}

/** The store's readable items in creation order (storage_items_order_idx; the reader set tested as above). */
export function itemsInCreationOrder(dialect: Dialect, scope: StoreScope, rows: number): RawBuilder<unknown> {
  return sql`SELECT o.seq FROM storage_items o WHERE o.tenant_id = ${scope.tenantId} AND o.store_id = ${scope.storeId}
        AND ${dialect.inSubquery(sql`(o.rs + 0)`, readerSets(scope))}
        ORDER BY o.seq LIMIT ${dialect.opaqueValue(rows, 'integer')}`;
}

/**
 * The walk's statement: the page of the walked rows that pass the condition, with their documents (WALKED_PAGE), in
 * the order `ties` says (the walked rows' own, valueRowsInOrder).
 */
export function walkStatement(
  dialect: Dialect,
  plan: WalkPlan,
  scope: StoreScope,
  walked: WalkedRows,
  start: number,
  limit: number,
  ties: WalkTies,
): RawBuilder<unknown> {
  const { tenantId, storeId } = scope;
  // The item `i` the condition tests is the walked row: its key is the row's, and the columns of the item are read
  // only where a test needs them (one probe each), not for each row walked. Every item is indexed: idx is 1.
  const column = (name: string) => sql`(SELECT d.${sql.ref(name)} FROM storage_items d WHERE d.seq = w.seq)`;
  const columns = ['doc', 'item_id', 'created_on', 'created_by', 'updated_on', 'updated_by'].map(
    (name) => sql`${column(name)} AS ${sql.ref(name)}`,
  );
  const order = (alias: string) => {
    const first = walked.order(alias);
    if (!first) return sql`${sql.ref(`${alias}.seq`)}`;
    return ties === 'seq' ? sql`${first}, ${sql.ref(`${alias}.seq`)}` : first;
  };
  const key = (column: string) => (walked.columns.includes(column) ? sql.ref(`p.${column}`) : sql`NULL`);
  const page = WALKED_PAGE.select({
    ...itemTextColumns('d'),
    plain: plainColumn(plan.plain),
    changes: storeChanges(scope),
    num: key('num'),
    str: key('str'),
  });
  // The keys the walk may test (WALKED_KEYS): in creation order, from the store's first key to the last walked row's
  // (read only where the condition refers to them: a bare term's matches are listed between them, not all of them);
  // a sort's rows follow no key order: the store's first and last.
  const ends = (fn: 'min' | 'max') =>
    sql`(SELECT ${sql.raw(fn)}(o.seq) FROM storage_items o WHERE o.tenant_id = ${tenantId} AND o.store_id = ${storeId})`;
  const hi = walked.key === 'items' ? sql`(SELECT max(q.seq) FROM (${walked.rows}) q)` : ends('max');
  // The page's documents are joined to the page (its rows only), in the page's order. Its limits are opaque to
  // SQLite's planner (Dialect.opaqueValue): a bound LIMIT made it prepare the statement again before every run
  // (callgrind, 100,000 items, filter + sort: 4.0M -> 3.2M instructions a run, the same plan).
  // Each document is found by its key alone (`seq`, the primary key): the tenant and store are tested on the row
  // (Dialect.testedOnRow), not sought in storage_items_order_idx, whose descents compare both as text.
  return sql`WITH ${sql.table(WALKED_KEYS)} AS (SELECT ${ends('min')} AS lo, ${hi} AS hi)
  SELECT ${page} FROM (
    SELECT ${sql.join(walked.columns.map((c) => sql.ref(`i.${c}`)))} FROM (
      SELECT w.*, 1 AS idx, ${sql.join(columns)} FROM (${walked.rows}) w) i
    WHERE ${plan.where ?? sql<SqlBool>`1 = 1`}
    ORDER BY ${order('i')} LIMIT ${dialect.opaqueValue(limit, 'integer')} OFFSET ${dialect.opaqueValue(start, 'integer')}) p
    JOIN storage_items d ON d.seq = p.seq AND ${dialect.testedOnRow('d.tenant_id')} = ${tenantId}
      AND ${dialect.testedOnRow('d.store_id')} = ${storeId}
    ORDER BY ${order('p')}`;
}
