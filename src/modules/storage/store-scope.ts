// What the list compiler (storage.query.ts) hands the list reads (StoreItemLists): a list's scope, its compiled
// query, and who may read in the store as SQL (the reader sets of a caller's grantees, the access probe of an item).
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { SortJoin } from '../../platform/query/index.js';
import { accessRows, granteesOf, mayAccess, readableKeys as readableKeysOf } from './store-access.js';

/** A list's store and caller. */
export interface StoreScope {
  tenantId: string;
  storeId: string;
  /** The caller's grantees (item-document.ts principalGrantees): whom the list may show items to. */
  grantees: string[];
  /**
   * The caller may read fewer than FEW_READABLE of the store's items (StoreItemLists.readsFew, a hint remembered a few
   * seconds: lists answer the same either way, only the plan of an indexed test differs).
   */
  fewReadable?: boolean;
}

/** The reader sets the scope's grantees may read (storage_reader_sets): the `rs` of the value rows they may see. */
export function readerSets(scope: StoreScope): RawBuilder<unknown> {
  return sql`SELECT g.set_id FROM storage_reader_set_grantees g WHERE g.tenant_id = ${scope.tenantId} AND g.store_id = ${scope.storeId}
    AND g.grantee IN (${sql.join(scope.grantees)})`;
}

/** "The scope's grantees may read the item `key`" (store-access.ts). */
export function mayRead(scope: StoreScope, key: RawBuilder<unknown>): RawBuilder<SqlBool> {
  return mayAccess(granteesOf(scope), 'r', key);
}

/**
 * Readable items a caller has at most for a test of an indexed value to probe each of them rather than read the value's
 * index rows (StoreScope.fewReadable). A probe costs about as much as reading ~10 rows of a range, and most values match
 * far more rows than this; a caller who may read more reads the range, whose rows it may not read cost one test each.
 */
export const FEW_READABLE = 500;

/** The keys of the store's items the scope's grantees may read, each once (store-access.ts). */
export function readableKeys(scope: StoreScope): RawBuilder<unknown> {
  return readableKeysOf(granteesOf(scope));
}

/** How many access rows the scope's grantees have in the store, up to FEW_READABLE (`n`): the few-items hint's count. */
export function readGrantsUpToFew(scope: StoreScope): RawBuilder<{ n: number | string }> {
  return sql<{ n: number | string }>`SELECT count(*) AS n FROM (SELECT 1 FROM ${accessRows(granteesOf(scope), 'r')} LIMIT ${sql.lit(FEW_READABLE)}) q__c`;
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
