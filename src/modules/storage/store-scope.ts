// What the list compiler (storage.query.ts) hands the list reads (StoreItemLists): a list's scope, its compiled
// query, and who may read in the store as SQL (the reader sets of a caller's grantees, the access probe of an item).
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { SortJoin } from '../../platform/query/index.js';

/** A list's store and caller. */
export interface StoreScope {
  tenantId: string;
  storeId: string;
  /** The caller's grantees (item-document.ts principalGrantees): whom the list may show items to. */
  grantees: string[];
}

/** The reader sets the scope's grantees may read (storage_reader_sets): the `rs` of the value rows they may see. */
export function readerSets(scope: StoreScope): RawBuilder<unknown> {
  return sql`SELECT g.set_id FROM storage_reader_set_grantees g WHERE g.tenant_id = ${scope.tenantId} AND g.store_id = ${scope.storeId}
    AND g.grantee IN (${sql.join(scope.grantees)})`;
}

/**
 * "The grantees may read the item `key`": one probe of the access index per grantee (storage_item_access; the
 * repository keeps it in the item's write transaction).
 */
export function mayRead(scope: StoreScope, key: RawBuilder<unknown>): RawBuilder<SqlBool> {
  return sql<SqlBool>`EXISTS (SELECT 1 FROM storage_item_access a WHERE a.tenant_id = ${scope.tenantId} AND a.store_id = ${scope.storeId}
    AND a.mode = 'r' AND a.grantee IN (${sql.join(scope.grantees)}) AND a.item_seq = ${key})`;
}

/**
 * Readable items a caller has at most for a test of an indexed value to probe each of them rather than read the value's
 * index rows (readsFew). A probe costs about as much as reading ~20 rows of a range, and most values match far more
 * rows than this; a caller who may read more reads the range, whose rows it may not read cost one test each.
 */
export const FEW_READABLE = 500;

/**
 * "The grantees may read few of the store's items" (fewer than FEW_READABLE access rows), a condition on no row, and
 * those items' keys, each once (storage_item_access, by grantee).
 */
export function readsFew(scope: StoreScope): { few: RawBuilder<SqlBool>; keys: RawBuilder<unknown> } {
  const rows = sql`FROM storage_item_access a WHERE a.tenant_id = ${scope.tenantId} AND a.store_id = ${scope.storeId}
    AND a.mode = 'r' AND a.grantee IN (${sql.join(scope.grantees)})`;
  return {
    few: sql<SqlBool>`((SELECT count(*) FROM (SELECT 1 ${rows} LIMIT ${sql.lit(FEW_READABLE)}) q__c) < ${sql.lit(FEW_READABLE)})`,
    keys: sql`SELECT DISTINCT a.item_seq AS seq ${rows}`,
  };
}

/** A list query over the value index (platform/query compileListQuerySets). */
export interface CompiledItemQuery {
  set?: RawBuilder<unknown>;
  orderBy: RawBuilder<unknown>[];
  joins: SortJoin[];
  needsItemRow: boolean;
  /**
   * For a list sorted by one indexed value: the value's path, the direction, and the query and filter as a condition
   * on one item (aliased `i`), so that a page can be read by walking the path's index rows in order (`walk`). Without
   * a path, for a list with a query or filter and no sort: the store's items are walked in creation order.
   */
  walk?: { path?: string; direction: 'ASC' | 'DESC'; where?: RawBuilder<SqlBool> };
  /**
   * Compiled for plain values (platform/query ValueIndexSource.plain): the condition under which it answers as the
   * general compile does, which every statement of the list checks in its own snapshot; where it does not hold, the
   * list is read again with `general()`.
   */
  plain?: RawBuilder<SqlBool>;
  general?: () => CompiledItemQuery;
}
