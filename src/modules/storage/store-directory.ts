// The stores of a tenant as one caller sees them: each with the number of its items the caller may read, counted from
// the access rows (store-access.ts) in one statement; a store where the caller may read nothing is not listed.
import { sql, type Kysely } from 'kysely';
import type { StorageTables } from './storage.tables.js';

export interface StoreSummary {
  storeId: string;
  readableItems: number;
}

export interface StoreDirectoryPage {
  total: number;
  stores: StoreSummary[];
}

type Row = { store_id: string; n: number | string; total: number | string };

/**
 * One page of the caller's stores, by store id. The counts group the read-access rows of the caller's grantees per
 * store (one range of the access table's primary key per store and grantee); an item that several grantees may read
 * counts once. The total (stores with a readable item) comes with the page (a window count).
 */
export async function readStoreDirectory(
  db: Kysely<StorageTables>,
  caller: { tenantId: string; grantees: readonly string[] },
  start: number,
  limit: number,
): Promise<StoreDirectoryPage> {
  const { rows } = await sql<Row>`SELECT c.store_id, c.n, count(*) OVER () AS total
    FROM (SELECT a.store_id, count(DISTINCT a.item_seq) AS n FROM storage_item_access a
      WHERE a.tenant_id = ${caller.tenantId} AND a.mode = 'r' AND a.grantee IN (${sql.join(caller.grantees)})
      GROUP BY a.store_id) c
    ORDER BY c.store_id LIMIT ${limit} OFFSET ${start}`.execute(db);
  if (rows.length === 0 && start > 0) {
    // Past the last page the window has no row to ride on: the total alone.
    const page = await readStoreDirectory(db, caller, 0, 1);
    return { total: page.total, stores: [] };
  }
  return {
    total: rows.length > 0 ? Number(rows[0].total) : 0,
    stores: rows.map((r) => ({ storeId: r.store_id, readableItems: Number(r.n) })),
  };
}
