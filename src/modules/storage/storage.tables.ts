import type { ColumnType, Generated } from 'kysely';

/** Row shapes of the storage module's tables, as Kysely sees them. JSON columns arrive per dialect. */

/** A store: the named index `svc-store-<storeId>` of the spec, created on first write. */
export interface StoreRow {
  tenant_id: string;
  store_id: string;
  index_name: string;
  created_on: number;
  created_by: string;
}

/** One item. `seq` gives creation order (the default list order) and keys the access rows. */
export interface StoreItemRow {
  seq: Generated<number>;
  tenant_id: string;
  store_id: string;
  item_id: string;
  /**
   * The written fields (id, moduleId, ..., customFields) as one JSON document, held as the JSON text the service wrote
   * on both engines (PostgreSQL: text since storage-014, not jsonb), so that reads copy it out without converting it.
   */
  doc: string;
  created_on: number;
  created_by: string;
  updated_on: number;
  updated_by: string;
  /** 1: the item's rows are in the value index; 0 (written before the index) or 2 (beyond its caps): read the document. */
  idx: ColumnType<number, number | undefined, number>;
  /** The item's reader set (storage_reader_sets.id), as on its value rows; set on every write (null only before one). */
  rs: ColumnType<number | null, number | null | undefined, number | null>;
}

/** One row of the value index (platform/query/value-index.ts). */
export interface StoreItemValueRow {
  /** The tenant, store and path of the value (storage_value_keys.id). */
  vk: number;
  item_seq: number;
  /** The item's reader set (storage_reader_sets.id): who may read it, so a list counts readable rows in the index. */
  rs: number;
  t: number;
  elem: number;
  num: number | null;
  str: string | null;
}

/**
 * One principal that may read ('r') or write ('w') an item. `grantee` is `<kind>:<name>` with kind
 * user, org, role or right, so "may this caller read?" is one indexed IN lookup, never a JSON scan.
 */
export interface StoreItemAccessRow {
  tenant_id: string;
  store_id: string;
  mode: 'r' | 'w';
  grantee: string;
  item_seq: number;
}

export interface StorageTables {
  storage_stores: StoreRow;
  storage_items: StoreItemRow;
  storage_item_access: StoreItemAccessRow;
  storage_item_values: StoreItemValueRow;
  storage_value_keys: StoreValueKeyRow;
  storage_reader_sets: StoreReaderSetRow;
  storage_reader_set_grantees: StoreReaderSetGranteeRow;
  storage_value_counts: StoreValueCountRow;
  storage_term_counts: StoreTermCountRow;
}

/**
 * How many items of a reader set hold a word in the words index (storage-012), kept by the writes
 * (item-term-counts.ts); a count is the sum of its shards.
 */
export interface StoreTermCountRow {
  term: string;
  rs: number;
  shard: number;
  n: number;
}

/**
 * How many items of a reader set hold a value at a path (value rows of the exact scalar kinds at the path itself),
 * kept by triggers on storage_item_values (storage-011; SQLite's inserts by the module's writes, storage-013); a count
 * is the sum of its shards.
 */
export interface StoreValueCountRow {
  vk: number;
  t: number;
  num: number | null;
  str: string | null;
  rs: number;
  shard: number;
  n: number;
}

/** The distinct read restrictions of a store's items: one row per set of read grantees (by its hash). */
export interface StoreReaderSetRow {
  id: Generated<number>;
  tenant_id: string;
  store_id: string;
  /** SHA-256 (hex) of the sorted grantees as JSON (item-index-keys.ts readerSetName). */
  grantees_hash: string;
}

/** "The grantee may read the items of this reader set": the sets a caller may read are one index range per grantee. */
export interface StoreReaderSetGranteeRow {
  tenant_id: string;
  store_id: string;
  grantee: string;
  set_id: number;
}

/** The key of a path in one store's value index (storage_item_values.vk). */
export interface StoreValueKeyRow {
  id: Generated<number>;
  tenant_id: string;
  store_id: string;
  path: string;
  /** The forms the path's values have taken (VALUE_FORM bits, only ever added to): one scalar kind lets a sort walk. */
  forms: ColumnType<number, number | undefined, unknown>;
}
