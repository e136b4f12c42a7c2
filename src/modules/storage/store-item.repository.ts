import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import type { ItemDocument } from './item-document.js';
import { restrictionGrantees } from './item-document.js';
import { PreparedQueries } from '../../platform/db/prepared-query.js';
import { batchedLookup } from '../../platform/db/batched-lookup.js';
import { batchPerTurn, type TurnBatchEntry } from '../../platform/async/turn-batch.js';
import { forTenant } from '../../platform/db/tenant-scope.js';
import { hasOffThreadWriter, recordWrites, writeOffThread } from '../../platform/db/write-off-thread.js';
import type { ThreadWrite } from '../../platform/db/sqlite-writer-thread.js';
import type { StorageSql } from './dialects/index.js';
import type { StorageTables, StoreItemRow } from './storage.tables.js';
import { ItemValueIndex, type PreparedKeys } from './item-value-index.js';
import type { CommittedRun } from './store-keys.js';
import { StoreItemLists, type ItemText } from './store-item-lists.repository.js';

export type { ItemText, ListPage } from './store-item-lists.repository.js';
export type { CompiledItemQuery } from './store-scope.js';

/** An item row with its document decoded. */
export interface ItemRecord {
  seq: number;
  doc: ItemDocument;
  createdOn: number;
  createdBy: string;
  updatedOn: number;
  updatedBy: string;
}

export interface ItemKey {
  tenantId: string;
  storeId: string;
  itemId: string;
}


type Db = Kysely<StorageTables>;
type ItemRowRead = Omit<StoreItemRow, 'seq' | 'tenant_id' | 'store_id' | 'item_id' | 'idx' | 'rs'> & { seq: number };
type ItemTextRow = Pick<StoreItemRow, 'created_on' | 'created_by' | 'updated_on' | 'updated_by'> & { doc_text: string; can_read: unknown };
type Mode = 'r' | 'w';
interface ReadRequest {
  key: ItemKey;
  grantees: string[];
}
interface NewItem {
  key: ItemKey;
  doc: ItemDocument;
  /** The document as JSON, serialised once: it is the batch's weight and goes into its parameter as is. */
  docJson: string;
  now: number;
  by: string;
}
interface PreparedItem extends NewItem {
  prepared: PreparedKeys;
}
/** Bound values of an item row (insertInStatements): tenant, store, id, document, created, by, idx, rs. */
const ITEM_ROW_WIDTH = 8;
/** The columns of an access row, in the order insertInStatements lists their values. */
const ACCESS_COLUMNS = ['tenant_id', 'store_id', 'item_seq', 'mode', 'grantee'] as const;
/** Access rows written by one statement. */
const ACCESS_ROWS_PER_STATEMENT = 200;
/**
 * Creates written by one statement at most, and the documents' size of one statement (items reach 5 MB). One such
 * statement under way at a time: the creates that arrive meanwhile go together in the next one (group commit), so
 * the statements grow with the load instead of multiplying (PostgreSQL, 50 connections: about 11 creates a statement
 * -> 23 and half the server's time; creates 1,783 -> 2,124 items/s, docs/benchmarks.md "Creates as one statement at
 * a time").
 */
const INSERT_BATCH_LIMITS = { concurrency: 1, maxBatch: 64, maxWeight: 4 * 1024 * 1024, weigh: (item: NewItem) => item.docJson.length };

/**
 * All SQL of the storage module. Every statement names its tenant and store; whether the caller may
 * read or write is an indexed lookup in storage_item_access inside the statement, never a filter on results.
 */
export class StoreItemRepository {
  private readonly db: Db;
  private readonly statements = new PreparedQueries();
  /**
   * Item reads, each with its own key and grantees; those of one turn are one statement: the requests joined to
   * the items by their unique key, each one's access decided by the same indexed lookup as everywhere
   * (PostgreSQL: 15% -> 54% of a bare route; docs/benchmarks/storage.md).
   */
  private readonly readItem: (request: ReadRequest) => Promise<ItemTextRow | undefined>;
  private readonly insertBatcher: (item: NewItem) => Promise<boolean>;
  /** The value index and full-text words of the items (item-value-index.ts). */
  readonly valueIndex: ItemValueIndex;
  /** Pages of the items a caller may read (store-item-lists.repository.ts). */
  readonly lists: StoreItemLists;

  constructor(
    db: Kysely<StorageTables>,
    private readonly dialect: Dialect,
    private readonly storageSql: StorageSql,
    /** Runs a job in a write transaction and answers after its commit (the module's WriteBatcher). */
    private readonly transact: CommittedRun,
  ) {
    this.db = db;
    this.valueIndex = new ItemValueIndex(dialect, this.statements);
    this.lists = new StoreItemLists(db, dialect);
    this.insertBatcher = batchPerTurn<NewItem, boolean>((entries) => this.insertBatch(entries), INSERT_BATCH_LIMITS);
    this.readItem = batchedLookup<ReadRequest, ItemTextRow>(db, this.dialect, {
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
          .select(['r.n', this.dialect.jsonText('i.doc').as('doc_text'), 'i.created_on', 'i.created_by', 'i.updated_on', 'i.updated_by'])
          .select(
            sql<SqlBool>`exists (select 1 from storage_item_access a where a.tenant_id = i.tenant_id and a.store_id = i.store_id and a.mode = 'r' and ${this.dialect.inList(sql.ref('a.grantee'), sql.ref('r.g'))} and a.item_seq = i.seq)`.as(
              'can_read',
            ),
          ),
    });
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
  async findWithReadAccess(key: ItemKey, grantees: string[]): Promise<{ item: ItemText; canRead: boolean } | undefined> {
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
      [key.tenantId, key.storeId, key.itemId, this.dialect.toJson(doc), now, by, this.valueIndex.flag(doc), await this.valueIndex.readerSetIn(trx, key, doc)],
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
    const row = await forTenant(trx, key.tenantId)
      .selectFrom('storage_item_access as a')
      .select('a.item_seq')
      .where('a.store_id', '=', key.storeId)
      .where('a.mode', '=', mode)
      .where('a.grantee', 'in', grantees)
      .where('a.item_seq', '=', seq)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async update(trx: Db, key: ItemKey, seq: number, doc: ItemDocument, now: number, by: string): Promise<void> {
    await forTenant(trx, key.tenantId)
      .updateTable('storage_items')
      .set({ doc: this.dialect.toJson(doc), updated_on: now, updated_by: by, idx: this.valueIndex.flag(doc), rs: await this.valueIndex.readerSetIn(trx, key, doc) })
      .where('store_id', '=', key.storeId)
      .where('seq', '=', seq)
      .execute();
  }

  /** The (mode, grantee) pairs of an item's restrictions: its access rows. */
  private grantsOf(doc: ItemDocument): Array<['r' | 'w', string]> {
    return [
      ...restrictionGrantees(doc.readRestriction).map((g): ['r', string] => ['r', g]),
      ...restrictionGrantees(doc.writeRestriction).map((g): ['w', string] => ['w', g]),
    ];
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
    const grants = this.grantsOf(doc);
    await this.statements.run(
      trx,
      `insert-access:${grants.length}`,
      (p) =>
        trx
          .insertInto('storage_item_access')
          .values(grants.map((_, n) => ({ tenant_id: p(0), store_id: p(1), item_seq: p(2), mode: p(3 + 2 * n), grantee: p(4 + 2 * n) }))),
      [key.tenantId, key.storeId, seq, ...grants.flat()],
    );
  }

  /**
   * Inserts the item with its access rows and index rows unless one with its id exists; answers whether it was
   * inserted. Creates that arrive while a batch is being written go together in the next (`insertBatch`): one
   * transaction, one WAL flush and a few statements for all of them. For stores known to exist.
   */
  insertBatched(key: ItemKey, doc: ItemDocument, now: number, by: string): Promise<boolean> {
    return this.insertBatcher({ key, doc, docJson: this.dialect.toJson(doc), now, by });
  }

  /**
   * Many creates at once: an id that exists already is skipped and answered false. If the batch fails, batchPerTurn
   * runs each create again on its own, so one bad create fails only itself.
   */
  private async insertBatch(entries: TurnBatchEntry<NewItem, boolean>[]): Promise<void> {
    // The keys of the items' paths first, per store (committed on their own: the statements cannot read keys they add).
    const stores = new Map<string, { scope: ItemKey; docs: ItemDocument[]; prepared?: PreparedKeys }>();
    const storeOf = ({ key }: NewItem) => {
      const name = `${key.tenantId}\u0000${key.storeId}`;
      let store = stores.get(name);
      if (!store) stores.set(name, (store = { scope: key, docs: [] }));
      return store;
    };
    for (const { input } of entries) storeOf(input).docs.push(input.doc);
    for (const store of stores.values()) store.prepared = await this.valueIndex.prepare(this.transact, store.scope, store.docs);
    const items = entries.map(({ input }) => ({ ...input, prepared: storeOf(input).prepared! }));
    const statement = this.storageSql.insertItemsWithAccess;
    const inserted = statement
      ? await this.insertInOneStatement(statement, items)
      : hasOffThreadWriter(this.db)
        ? await this.insertOffThread(items)
        : await this.transact((trx) => this.insertInStatements(trx, items));
    entries.forEach((entry, n) => entry.resolve(inserted.has(n)));
  }

  /** The items in one statement (StorageSql.insertItemsWithAccess): the new items travel as one JSON parameter. */
  private async insertInOneStatement(statement: NonNullable<StorageSql['insertItemsWithAccess']>, items: PreparedItem[]): Promise<Set<number>> {
    // Built as text so that each document is serialised once (it may be megabytes).
    const records = items.map(({ key, doc, docJson, now, by, prepared }, n) => {
      const grants = this.grantsOf(doc).map(([mode, grantee]) => ({ mode, grantee }));
      const v = this.valueIndex.records(doc, prepared);
      const r = this.valueIndex.readerSet(doc, prepared);
      const rest = JSON.stringify({ n, t: key.tenantId, s: key.storeId, k: key.itemId, c: now, b: by, g: grants, x: this.valueIndex.flag(doc), r, v, w: this.valueIndex.wordsAndTokens(key, doc) });
      return `${rest.slice(0, -1)},"d":${docJson}}`;
    });
    const rows = await this.statements.run<{ n: number }>(
      this.db,
      'insert-items-with-access',
      (p) => {
        const built = statement(p(0));
        return { compile: () => built.compile(this.db) };
      },
      [`[${records.join(',')}]`],
    );
    return new Set(rows.map((row) => Number(row.n)));
  }

  /**
   * The items in a few statements of the caller's transaction (SQLite, whose statements cannot write inside WITH):
   * the item rows (answering the keys of those inserted), then all their access rows, value rows and words.
   */
  private async insertInStatements(trx: Db, items: PreparedItem[]): Promise<Set<number>> {
    const rows = await this.statements.run<{ seq: number; tenant_id: string; store_id: string; item_id: string }>(
      trx,
      `insert-items:${items.length}`,
      (p) =>
        trx
          .insertInto('storage_items')
          .values(items.map((_, n) => this.itemRowValues(p, n * ITEM_ROW_WIDTH)))
          .onConflict((oc) => oc.columns(['tenant_id', 'store_id', 'item_id']).doNothing())
          .returning(['seq', 'tenant_id', 'store_id', 'item_id']),
      items.flatMap((item) => this.itemRowArgs(item)),
    );
    const seqs = new Map(rows.map((row) => [`${row.tenant_id}\u0000${row.store_id}\u0000${row.item_id}`, Number(row.seq)]));
    const inserted = new Set<number>();
    const written: Array<{ item: PreparedItem; seq: number }> = [];
    items.forEach((item, n) => {
      const seq = seqs.get(`${item.key.tenantId}\u0000${item.key.storeId}\u0000${item.key.itemId}`);
      if (seq === undefined) return;
      inserted.add(n);
      written.push({ item, seq });
    });
    await this.writeRowsOf(trx, written);
    return inserted;
  }

  /**
   * The items on SQLite's writer thread (writeOffThread), in one transaction there. Their statements are built first,
   * with markers for their keys (`NewSeq`), while the thread may still be writing the batch before; the keys are then
   * taken after the largest in the table, read on the main connection, which stays held until the commit (so no other
   * write takes them meanwhile). An id that exists already fails the thread's transaction (nothing of it is written):
   * the batch then goes through the main connection, which skips it (`insertInStatements`).
   */
  private async insertOffThread(items: PreparedItem[]): Promise<Set<number>> {
    const writes = await recordWrites(async (record: Db) => {
      const width = ITEM_ROW_WIDTH + 1;
      await this.statements.run(
        record,
        `insert-items-keyed:${items.length}`,
        (p) => record.insertInto('storage_items').values(items.map((_, n) => ({ seq: p(n * width), ...this.itemRowValues(p, n * width + 1) }))),
        items.flatMap((item, n) => [new NewSeq(n), ...this.itemRowArgs(item)]),
      );
      await this.writeRowsOf(record, items.map((item, n) => ({ item, seq: new NewSeq(n) as unknown as number })));
    });
    try {
      await writeOffThread(this.db, writes, async (main: Db) => {
        const last = await main.selectFrom('storage_items').select(sql<number>`coalesce(max(seq), 0)`.as('seq')).executeTakeFirstOrThrow();
        return withSeqs(writes, Number(last.seq) + 1);
      });
    } catch (error) {
      if (!String((error as { code?: unknown }).code).startsWith('SQLITE_CONSTRAINT')) throw error;
      return this.transact((trx) => this.insertInStatements(trx, items));
    }
    return new Set(items.keys());
  }

  /** The values of an item row for placeholders from `at` on (ITEM_ROW_WIDTH of them, in itemRowArgs' order). */
  private itemRowValues(p: (index: number) => any, at: number) {
    const [created, by] = [p(at + 4), p(at + 5)];
    return { tenant_id: p(at), store_id: p(at + 1), item_id: p(at + 2), doc: p(at + 3), created_on: created, created_by: by, updated_on: created, updated_by: by, idx: p(at + 6), rs: p(at + 7) };
  }

  private itemRowArgs({ key, doc, docJson, now, by, prepared }: PreparedItem): unknown[] {
    return [key.tenantId, key.storeId, key.itemId, docJson, now, by, this.valueIndex.flag(doc), this.valueIndex.readerSet(doc, prepared)];
  }

  /** The access rows, value rows and words of inserted items, each kind in multi-row inserts of bound values. */
  private async writeRowsOf(trx: Db, written: ReadonlyArray<{ item: PreparedItem; seq: number }>): Promise<void> {
    const access: unknown[] = [];
    for (const { item, seq } of written) {
      for (const [mode, grantee] of this.grantsOf(item.doc)) access.push(item.key.tenantId, item.key.storeId, seq, mode, grantee);
    }
    await this.statements.insertRows(trx, 'insert-access-rows', 'storage_item_access', ACCESS_COLUMNS, access, ACCESS_ROWS_PER_STATEMENT);
    await this.valueIndex.writeMany(
      trx,
      written.map(({ item, seq }) => ({ scope: item.key, seq, doc: item.doc, prepared: item.prepared })),
    );
  }

  async delete(trx: Db, key: ItemKey, seq: number): Promise<void> {
    await this.deleteIndexes(trx, key, seq);
    await forTenant(trx, key.tenantId).deleteFrom('storage_items').where('store_id', '=', key.storeId).where('seq', '=', seq).execute();
  }

  private async deleteIndexes(trx: Db, key: ItemKey, seq: number): Promise<void> {
    const tenant = forTenant(trx, key.tenantId);
    await tenant.deleteFrom('storage_item_access').where('store_id', '=', key.storeId).where('item_seq', '=', seq).execute();
    await this.valueIndex.remove(trx, seq);
  }
}

/** The key of the `n`th item of a batch written off thread, before it is known (StoreItemRepository.insertOffThread). */
class NewSeq {
  constructor(readonly n: number) {}
}

/** The statements with every NewSeq replaced by its key, `first` for the batch's first item. */
function withSeqs(writes: readonly ThreadWrite[], first: number): ThreadWrite[] {
  return writes.map(({ sql: text, parameters }) => ({ sql: text, parameters: parameters.map((v) => (v instanceof NewSeq ? first + v.n : v)) }));
}
