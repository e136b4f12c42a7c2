// Exports of a store's items as the caller may read them, page by page: a walk by creation order that resumes after
// the last key it read (keyset) where the export has no query, filter or sort; otherwise the list's own pages (offset).
// The pages are read as the client takes them (store-export-format.ts writes them), so one page is held at a time.
import { sql, type Kysely } from 'kysely';
import type { ListQueryInput } from '../../platform/query/index.js';
import type { StorageTables } from './storage.tables.js';
import { granteesOf, mayAccess } from './store-access.js';
import type { StoreItemLists } from './store-item-lists.repository.js';
import type { ItemText } from './store-list-reads.js';
import type { StoreCaller } from './store-scope.js';

type Row = {
  seq: number | string;
  doc_text: string;
  created_on: number | string;
  created_by: string;
  updated_on: number | string;
  updated_by: string;
};

const hasListParameters = (input: ListQueryInput) =>
  [input.query, input.filter, input.sort].some((p) => p !== undefined && (typeof p !== 'string' || p.trim() !== ''));

/**
 * The pages of an export. The first page is read before the generator is handed out, so invalid list parameters
 * throw (and answer the error object) before the answer starts.
 */
export async function exportPages(
  db: Kysely<StorageTables>,
  lists: StoreItemLists,
  caller: StoreCaller,
  input: ListQueryInput,
  pageSize: number,
): Promise<AsyncGenerator<ItemText[]>> {
  if (hasListParameters(input)) {
    const first = await lists.read(caller, input, { start: 0, limit: pageSize });
    return (async function* () {
      let page = first.records;
      for (let start = 0; page.length > 0; ) {
        yield page;
        if (page.length < pageSize) return;
        start += page.length;
        page = (await lists.read(caller, input, { start, limit: pageSize })).records;
      }
    })();
  }
  const who = granteesOf(caller);
  const after = async (seq: number) => {
    const { rows } = await sql<Row>`SELECT i.seq, i.doc AS doc_text, i.created_on, i.created_by,
        i.updated_on, i.updated_by
      FROM storage_items i
      WHERE i.tenant_id = ${caller.tenantId} AND i.store_id = ${caller.storeId} AND i.seq > ${seq}
        AND ${mayAccess(who, 'r', sql.ref('i.seq'))}
      ORDER BY i.seq LIMIT ${pageSize}`.execute(db);
    return rows;
  };
  const first = await after(0);
  return (async function* () {
    let rows = first;
    while (rows.length > 0) {
      yield rows.map(toItemText);
      if (rows.length < pageSize) return;
      rows = await after(Number(rows[rows.length - 1].seq));
    }
  })();
}

const toItemText = (r: Row): ItemText => ({
  docText: r.doc_text,
  createdOn: Number(r.created_on),
  createdBy: r.created_by,
  updatedOn: Number(r.updated_on),
  updatedBy: r.updated_by,
});
