// A list's caller and store, and who may read there as the value index has it: the reader sets of the caller's
// grantees (each value row carries its item's set as `rs`; store-access.ts has the access rows).
import { sql, type RawBuilder } from 'kysely';

/** A list's store and caller. */
export interface StoreCaller {
  tenantId: string;
  storeId: string;
  /** The caller's grantees (item-document.ts principalGrantees): whom the list may show items to. */
  grantees: string[];
}

/** A list's caller with the plan hint taken for it (StoreItemLists.read). */
export interface StoreScope extends StoreCaller {
  /**
   * The caller may read fewer than FEW_READABLE of the store's items (FewReadableHint, remembered a few seconds: lists
   * answer the same either way, only the plan of an indexed test differs).
   */
  fewReadable?: boolean;
}

/**
 * Readable items a caller has at most for a test of an indexed value to probe each of them rather than read the
 * value's index rows (StoreScope.fewReadable). A probe costs about as much as reading ~10 rows of a range, and most
 * values match far more rows than this; a caller who may read more reads the range, whose rows it may not read cost
 * one test each.
 */
export const FEW_READABLE = 500;

/** The reader sets the caller's grantees may read (storage_reader_sets): the `rs` of the value rows they may see. */
export function readerSets(scope: StoreCaller): RawBuilder<unknown> {
  return sql`SELECT g.set_id FROM storage_reader_set_grantees g
    WHERE g.tenant_id = ${scope.tenantId} AND g.store_id = ${scope.storeId}
    AND g.grantee IN (${sql.join(scope.grantees)})`;
}
