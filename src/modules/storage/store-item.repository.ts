import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import type { ItemDocument } from './item-document.js';
import { accessGrants } from './item-document.js';
import { PreparedQueries } from '../../platform/db/prepared-query.js';
import { batchedLookup } from '../../platform/db/batched-lookup.js';
import type { DataAccess } from '../../platform/db/data-access.js';
import { forTenant } from '../../platform/db/tenant-scope.js';
import type { StorageSql } from './dialects/index.js';
import type { StorageTables, StoreItemRow } from './storage.tables.js';
import { ItemValueIndex } from './item-value-index.js';
import { StoreItemCreates } from './store-item-creates.js';
import type { CommittedRun, ItemKey } from './store-keys.js';
import { StoreItemLists, type ItemText } from './store-item-lists.repository.js';
import type { ChangeFeed } from '../../platform/events/index.js';
import { exportPages } from './store-export.js';
import type { StoreCaller } from './store-scope.js';
import type { ListQueryInput } from '../../platform/query/index.js';
import { readStoreDirectory } from './store-directory.js';
import { accessRows, granteesOf, mayAccess, type Grantees } from './store-access.js';

export type { ItemText, ListPage } from './store-item-lists.repository.js';
export type { ItemKey } from './store-keys.js';

import type { ItemRecord } from './store-item-record.js';

export type { ItemRecord } from './store-item-record.js';

type Db = Kysely<StorageTables>;
type ItemRowRead = Omit<StoreItemRow, 'seq' | 'tenant_id' | 'store_id' | 'item_id' | 'idx' | 'rs'> & { seq: number };
type ItemTextRow = Pick<StoreItemRow, 'created_on' | 'created_by' | 'updated_on' | 'updated_by'> & {
  doc_text: string;
  can_read: unknown;
};
type Mode = 'r' | 'w';
interface ReadRequest {
  key: ItemKey;
  grantees: string[];
}
/**
 * All SQL of the storage module. Every statement names its tenant and store; whether the caller may
 * read or write is an indexed lookup in storage_item_access inside the statement, never a filter on results.
 */
export class StoreItemRepository {
  private readonly statements = new PreparedQueries();
  private readonly db: Db;
  /**
   * Item reads, each with its own key and grantees; those of one turn are one statement: the requests joined to
   * the items by their unique key, each one's access decided by the same indexed lookup as everywhere
   * (PostgreSQL: 15% -> 54% of a bare route; docs/benchmarks/storage.md).
   */
  private readonly readItem: (request: ReadRequest) => Promise<ItemTextRow | undefined>;
  /** Creates in batches (store-item-creates.ts). */
  private readonly creates: StoreItemCreates;
  /** The value index and full-text words of the items (item-value-index.ts). */
  readonly valueIndex: ItemValueIndex;
  /** Pages of the items a caller may read (store-item-lists.repository.ts). */
  readonly lists: StoreItemLists;

  constructor(
    data: DataAccess<StorageTables>,
    private readonly dialect: Dialect,
    storageSql: StorageSql,
    /** Runs a job in a write transaction and answers after its commit (the module's WriteBatcher). */
    transact: CommittedRun,
    feed: ChangeFeed,
  ) {
    this.db = data.db;
    this.valueIndex = new ItemValueIndex(dialect, this.statements, storageSql);
    this.lists = new StoreItemLists(data, dialect);
    this.creates = new StoreItemCreates(data, dialect, storageSql, transact, this.statements, this.valueIndex, feed);
    this.readItem = batchedLookup<ReadRequest, ItemTextRow>(data, this.dialect, {
      name: 'read-items',
      columns: { t: 'text', s: 'text', k: 'text', g: 'list' },
      record: ({ key, grantees }) => ({ t: key.tenantId, s: key.storeId, k: key.itemId, g: grantees }),
      query: (records) =>
        this.dialect
          .joinByKey(records, 'storage_items', 'i', [
            ['tenant_id', 'r.t'],
            ['store_id', 'r.s'],
            ['item_id', 'r.k'],
          ])
          .select(['r.n', 'i.doc as doc_text', 'i.created_on', 'i.created_by', 'i.updated_on', 'i.updated_by'])
          .select(mayAccess(this.requestGrantees, 'r', sql.ref('i.seq')).as('can_read')),
    });
  }

  /** The grantees of each request of a batched item read: its item's tenant and store, its own list (`r.g`). */
  private get requestGrantees(): Grantees {
    const granteeIn = (grantee: RawBuilder<unknown>) => this.dialect.inList(grantee, sql.ref('r.g'));
    return { tenantId: sql.ref('i.tenant_id'), storeId: sql.ref('i.store_id'), granteeIn };
  }

  /** The pages of an export (store-export.ts); the first is read before this answers. */
  exportPages(caller: StoreCaller, input: ListQueryInput, pageSize: number) {
    return exportPages(this.db, this.lists, caller, input, pageSize);
  }

  /** One page of the caller's stores with their readable item counts (store-directory.ts). */
  storeDirectory(caller: { tenantId: string; grantees: readonly string[] }, start: number, limit: number) {
    return readStoreDirectory(this.db, caller, start, limit);
  }

  private toRecord(row: ItemRowRead): ItemRecord {
    return {
      seq: Number(row.seq),
      doc: this.dialect.fromJson<ItemDocument>(row.doc),
      createdOn: Number(row.created_on),
      createdBy: row.created_by,
      updatedOn: Number(row.updated_on),
      updatedBy: row.updated_by,
    };
  }

  /**
   * The item, its document as JSON text, and whether the grantees may read it; undefined when the item (or its
   * store) does not exist. Reads that arrive in the same turn of the event loop are answered by one statement
   * (`readItem`).
   */
  async findWithReadAccess(
    key: ItemKey,
    grantees: string[],
  ): Promise<{ item: ItemText; canRead: boolean } | undefined> {
    const row = await this.readItem({ key, grantees });
    if (!row) return undefined;
    const item: ItemText = {
      docText: row.doc_text,
      createdOn: Number(row.created_on),
      createdBy: row.created_by,
      updatedOn: Number(row.updated_on),
      updatedBy: row.updated_by,
    };
    return { item, canRead: this.dialect.fromBool(row.can_read) };
  }

  /** Creates the store (its index `svc-store-<storeId>`) unless it exists. */
  async ensureStore(trx: Db, tenantId: string, storeId: string, now: number, by: string): Promise<void> {
    await this.statements.run(
      trx,
      'ensure-store',
      (p) =>
        trx
          .insertInto('storage_stores')
          .values({ tenant_id: p(0), store_id: p(1), index_name: p(2), created_on: p(3), created_by: p(4) })
          .onConflict((oc) => oc.columns(['tenant_id', 'store_id']).doNothing()),
      [tenantId, storeId, `svc-store-${storeId}`, now, by],
    );
  }

  /** Inserts the item unless one with its id exists; answers the new seq, or undefined when it existed. */
  async insertIfAbsent(trx: Db, key: ItemKey, doc: ItemDocument, now: number, by: string): Promise<number | undefined> {
    const rows = await this.statements.run<{ seq: number }>(
      trx,
      'insert-item',
      (p) =>
        trx
          .insertInto('storage_items')
          .values({
            tenant_id: p(0),
            store_id: p(1),
            item_id: p(2),
            doc: p(3),
            created_on: p(4),
            created_by: p(5),
            updated_on: p(4),
            updated_by: p(5),
            idx: p(6),
            rs: p(7),
          })
          .onConflict((oc) => oc.columns(['tenant_id', 'store_id', 'item_id']).doNothing())
          .returning('seq'),
      [
        key.tenantId,
        key.storeId,
        key.itemId,
        this.dialect.toJson(doc),
        now,
        by,
        this.valueIndex.flag(doc),
        await this.valueIndex.readerSetIn(trx, key, doc),
      ],
    );
    return rows[0] ? Number(rows[0].seq) : undefined;
  }

  /**
   * Locks the item row for the rest of the transaction (a no-op update: portable, unlike FOR UPDATE)
   * and answers it. Whoever changes an item's access rows holds this lock, so a check made after it is current.
   */
  async lock(trx: Db, key: ItemKey): Promise<ItemRecord | undefined> {
    const row = await forTenant(trx, key.tenantId)
      .updateTable('storage_items as i')
      .set({ updated_on: sql`updated_on` })
      .where('i.store_id', '=', key.storeId)
      .where('i.item_id', '=', key.itemId)
      .returning(['seq', 'doc', 'created_on', 'created_by', 'updated_on', 'updated_by'])
      .executeTakeFirst();
    return row ? this.toRecord(row) : undefined;
  }

  async hasAccess(trx: Db, key: ItemKey, seq: number, mode: Mode, grantees: string[]): Promise<boolean> {
    const who = granteesOf({ tenantId: key.tenantId, storeId: key.storeId, grantees });
    const found = sql<{
      found: number;
    }>`SELECT 1 AS found FROM ${accessRows(who, mode)} AND a.item_seq = ${seq} LIMIT 1`;
    const { rows } = await found.execute(trx);
    return rows.length > 0;
  }

  async update(trx: Db, key: ItemKey, seq: number, doc: ItemDocument, now: number, by: string): Promise<void> {
    // Its words leave the kept counts under the reader set the row has now (writeIndexes adds the new ones).
    await this.valueIndex.removeWords(trx, seq);
    await forTenant(trx, key.tenantId)
      .updateTable('storage_items')
      .set({
        doc: this.dialect.toJson(doc),
        updated_on: now,
        updated_by: by,
        idx: this.valueIndex.flag(doc),
        rs: await this.valueIndex.readerSetIn(trx, key, doc),
      })
      .where('store_id', '=', key.storeId)
      .where('seq', '=', seq)
      .execute();
  }

  /**
   * Writes the item's access rows (its restrictions) and value index rows, replacing any it had: in the item's
   * transaction, so a failed write leaves none and a reader never sees the rows of another version.
   */
  async writeIndexes(trx: Db, key: ItemKey, seq: number, doc: ItemDocument, replace: boolean): Promise<void> {
    if (replace) await this.deleteIndexes(trx, key, seq);
    await this.writeAccess(trx, key, seq, doc);
    await this.valueIndex.write(trx, key, seq, doc);
  }

  /** Writes the access rows of the item's restrictions. */
  private async writeAccess(trx: Db, key: ItemKey, seq: number, doc: ItemDocument): Promise<void> {
    const grants = accessGrants(doc);
    await this.statements.run(
      trx,
      `insert-access:${grants.length}`,
      (p) =>
        trx.insertInto('storage_item_access').values(
          grants.map((_, n) => ({
            tenant_id: p(0),
            store_id: p(1),
            item_seq: p(2),
            mode: p(3 + 2 * n),
            grantee: p(4 + 2 * n),
          })),
        ),
      [key.tenantId, key.storeId, seq, ...grants.flat()],
    );
  }

  /**
   * Inserts the item with its access rows and index rows unless one with its id exists; answers whether it was
   * inserted. Creates that arrive while a batch is being written go together in the next (store-item-creates.ts): one
   * transaction, one WAL flush and a few statements for all of them. For stores known to exist.
   */
  insertBatched(key: ItemKey, doc: ItemDocument, now: number, by: string): Promise<boolean> {
    return this.creates.insert(key, doc, now, by);
  }

  async delete(trx: Db, key: ItemKey, seq: number): Promise<void> {
    await this.deleteIndexes(trx, key, seq);
    await forTenant(trx, key.tenantId)
      .deleteFrom('storage_items')
      .where('store_id', '=', key.storeId)
      .where('seq', '=', seq)
      .execute();
  }

  private async deleteIndexes(trx: Db, key: ItemKey, seq: number): Promise<void> {
    const tenant = forTenant(trx, key.tenantId);
    await tenant
      .deleteFrom('storage_item_access')
      .where('store_id', '=', key.storeId)
      .where('item_seq', '=', seq)
      .execute();
    await this.valueIndex.remove(trx, seq);
  }
}
