// Who may read or write an item, as SQL: the access rows (storage_item_access) its restrictions became, kept in the
// item's write transaction. One fragment for every statement that decides it: lists, item reads and writes.
import { sql, type RawBuilder, type SqlBool } from 'kysely';

/** Whose access rows: a tenant, a store and grantees, as values bound into the statement or as columns of it. */
export interface Grantees {
  /** The tenant and the store: values, or columns of the statement (`sql.ref`). */
  tenantId: unknown;
  storeId: unknown;
  /** "`column` is one of the grantees". */
  granteeIn: (column: RawBuilder<unknown>) => RawBuilder<SqlBool>;
}

/** A caller's grantees in one store, bound into the statement. */
export function granteesOf(who: { tenantId: string; storeId: string; grantees: readonly string[] }): Grantees {
  return {
    tenantId: who.tenantId,
    storeId: who.storeId,
    granteeIn: (column) => sql<SqlBool>`${column} IN (${sql.join(who.grantees)})`,
  };
}

/**
 * The access rows (aliased `a`) by which the grantees may read (`r`) or write (`w`) items: a FROM and its WHERE, one
 * range of the access table's primary key (tenant, store, mode, grantee, item).
 */
export function accessRows(who: Grantees, mode: 'r' | 'w'): RawBuilder<unknown> {
  return sql`storage_item_access a WHERE a.tenant_id = ${who.tenantId} AND a.store_id = ${who.storeId}
    AND a.mode = ${sql.lit(mode)} AND ${who.granteeIn(sql.ref('a.grantee'))}`;
}

/** "The grantees may read (or write) the item `key`": one probe of the access index per grantee. */
export function mayAccess(who: Grantees, mode: 'r' | 'w', key: unknown): RawBuilder<SqlBool> {
  return sql<SqlBool>`EXISTS (SELECT 1 FROM ${accessRows(who, mode)} AND a.item_seq = ${key})`;
}

/** The keys (`seq`) of the store's items the grantees may read, each once. */
export function readableKeys(who: Grantees): RawBuilder<unknown> {
  return sql`SELECT DISTINCT a.item_seq AS seq FROM ${accessRows(who, 'r')}`;
}
