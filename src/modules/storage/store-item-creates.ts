// Creates of items (POST), in batches (StoreItemRepository.insertBatched; the store's row is made sure of before, by
// StorageService.knowStore): the creates that arrive while one batch is being written go together in the next, each
// with its access rows, value rows and words, one commit for all. How a batch is written suits the engine: one
// statement on PostgreSQL, a few statements on SQLite's writer thread, or in the group commit's transaction where
// that thread is off.
import type { Kysely } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import type { PreparedQueries } from '../../platform/db/prepared-query.js';
import { batchPerTurn, type TurnBatchEntry } from '../../platform/async/turn-batch.js';
import { hasOffThreadWriter, recordWrites, writeOffThread } from '../../platform/db/write-off-thread.js';
import type { DataAccess } from '../../platform/db/data-access.js';
import type { ThreadWrite } from '../../platform/db/sqlite-writer-thread.js';
import { accessGrants, type ItemDocument } from './item-document.js';
import type { CreateItemsArgs, StorageSql } from './dialects/index.js';
import type { StorageTables } from './storage.tables.js';
import type { ItemValueIndex, PreparedKeys } from './item-value-index.js';
import type { CommittedRun, ItemKey } from './store-keys.js';
import type { ChangeFeed, Publish, PublishedEvent } from '../../platform/events/index.js';
import { readersOf, storeEvent, storeEventText, storeTopic, type StoreItemChange } from './store-events.js';
import { toStoreItem } from './store-item-record.js';
import { createdItemTail } from './item-json.js';

type Db = Kysely<StorageTables>;

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
/** The columns of an access row, in the order writeRowsOf lists their values. */
const ACCESS_COLUMNS = ['tenant_id', 'store_id', 'item_seq', 'mode', 'grantee'] as const;
/** Access rows written by one statement. */
const ACCESS_ROWS_PER_STATEMENT = 200;
/**
 * Creates written by one statement at most, and the documents' size of one statement (items reach 5 MB). One batch
 * under way at a time (PostgreSQL: STATEMENT_BATCH_LIMITS): the creates that arrive meanwhile go together in the next
 * (group commit), so the statements grow with the load instead of multiplying (PostgreSQL, 50 connections: about 11
 * creates a statement -> 23 and half the server's time; creates 1,783 -> 2,124 items/s, measured when the limit came
 * in).
 */
const INSERT_BATCH_LIMITS = {
  concurrency: 1,
  maxBatch: 64,
  maxWeight: 4 * 1024 * 1024,
  weigh: (item: NewItem) => item.docJson.length,
};
/**
 * PostgreSQL (one statement a batch): a second statement may run beside the first once 20 creates wait for it. With
 * one under way, the server ran one statement on one core while the service's thread waited for its answer and the
 * other core idled (a third of the machine during 50 connections' creates); two batches in turn keep both busy, and
 * neither gets small: a few creates beside a statement under way wait for it. 50 connections: 1.18-1.23 times the
 * creates/s warm, 1.10 cold, CPU a create within 5% (docs/benchmarks.md, issue 47's tenth run). SQLite's writer takes
 * one transaction at a time whatever the service sends (measured: no change), so it keeps one.
 */
const STATEMENT_BATCH_LIMITS = { ...INSERT_BATCH_LIMITS, concurrency: 2, minBeside: 20 };

export class StoreItemCreates {
  private readonly batcher: (item: NewItem) => Promise<boolean>;
  /** Writes a batch whose keys are prepared; answers the places of the items inserted. Chosen once, by engine. */
  private readonly write: (items: PreparedItem[]) => Promise<Set<number>>;

  private readonly db: Db;

  constructor(
    private readonly data: DataAccess<StorageTables>,
    private readonly dialect: Dialect,
    storageSql: StorageSql,
    /** Runs a job in a write transaction and answers after its commit (the module's WriteBatcher). */
    private readonly transact: CommittedRun,
    private readonly statements: PreparedQueries,
    private readonly valueIndex: ItemValueIndex,
    /** Where the creates are told (store-events.ts): in their transaction, or right after the writer thread's. */
    private readonly feed: ChangeFeed,
  ) {
    this.db = data.db;
    const create = storageSql.createItems;
    this.batcher = batchPerTurn<NewItem, boolean>(
      (entries) => this.insertBatch(entries),
      create ? STATEMENT_BATCH_LIMITS : INSERT_BATCH_LIMITS,
    );
    this.write = create
      ? (items) => this.insertInCalls(create, items)
      : hasOffThreadWriter(data)
        ? (items) => this.insertOffThread(items)
        : (items) => this.insertInTransaction(items);
  }

  /** The items in the group commit's transaction, with their feed events. */
  private insertInTransaction(items: PreparedItem[]): Promise<Set<number>> {
    return this.feed.within<Db, Set<number>>(this.transact, async (trx, publish) => {
      const inserted = await this.insertInStatements(trx, items);
      await publishCreates(publish, items, inserted);
      return inserted;
    });
  }

  /** Inserts the item with its rows unless one with its id exists; answers whether it was inserted. */
  insert(key: ItemKey, doc: ItemDocument, now: number, by: string): Promise<boolean> {
    return this.batcher({ key, doc, docJson: this.dialect.toJson(doc), now, by });
  }

  /**
   * Many creates at once: an id that exists already is skipped and answered false. If the batch fails, batchPerTurn
   * runs each create again on its own, so one bad create fails only itself.
   */
  private async insertBatch(entries: TurnBatchEntry<NewItem, boolean>[]): Promise<void> {
    // The keys of the items' paths first, per store (committed on their own: the statements cannot read keys they add).
    const inputs = entries.map(({ input }) => input);
    const items: PreparedItem[] = [];
    for (const places of placesByStore(inputs)) {
      const docs = places.map((n) => inputs[n].doc);
      const prepared = await this.valueIndex.prepare(this.transact, inputs[places[0]].key, docs);
      for (const n of places) items[n] = { ...inputs[n], prepared };
    }
    const inserted = await this.write(items);
    entries.forEach((entry, n) => entry.resolve(inserted.has(n)));
  }

  /**
   * The items in one call per store (StorageSql.createItems: PostgreSQL), each its own transaction with its store's
   * feed event: one round trip, where a transaction of a statement and the event took four. The stores' calls run side
   * by side (a batch holds items of one store but where many are written at once).
   */
  private async insertInCalls(
    create: NonNullable<StorageSql['createItems']>,
    items: PreparedItem[],
  ): Promise<Set<number>> {
    const inserted = new Set<number>();
    await Promise.all(
      placesByStore(items).map(async (places) => {
        const created = await this.insertInCall(
          create,
          places.map((n) => items[n]),
        );
        for (const n of created) inserted.add(places[n]);
      }),
    );
    return inserted;
  }

  /** Items of one store in one call (insertInCalls): answers the places of those inserted, and delivers their event. */
  private async insertInCall(create: NonNullable<StorageSql['createItems']>, items: PreparedItem[]): Promise<number[]> {
    const { tenantId, storeId } = items[0].key;
    const changes = items.map(createdChange);
    // Built as text so that each document is serialised once (it may be megabytes). The document travels as a JSON
    // string, stored as it is (storage_items.doc is text): as an object the server parsed every document into jsonb.
    const records = items.map(({ key, doc, docJson, now, by, prepared }, n) => {
      const grants = accessGrants(doc).map(([mode, grantee]) => ({ mode, grantee }));
      const v = this.valueIndex.records(doc, prepared);
      const r = this.valueIndex.readerSet(doc, prepared);
      const rest = JSON.stringify({
        n,
        t: key.tenantId,
        s: key.storeId,
        k: key.itemId,
        c: now,
        b: by,
        g: grants,
        x: this.valueIndex.flag(doc),
        r,
        v,
      });
      const words = this.valueIndex.wordsAndTokensJson(key, doc);
      // The change's text is the server's (createItemsStatement): `m` is what follows the document in it.
      const m = `${createdItemTail(doc, now, by)},"readers":${JSON.stringify(changes[n].readers)}}`;
      return `${rest.slice(0, -1)},"w":${words},"m":${JSON.stringify(m)},"d":${JSON.stringify(docJson)}}`;
    });
    const now = Date.now();
    const topic = storeTopic(storeId);
    const text = storeEventText(storeId);
    const notice = this.feed.notice({ tenantId, topic }, now);
    const args: CreateItemsArgs = [
      `[${records.join(',')}]`,
      tenantId,
      topic,
      now,
      text.head,
      text.tail,
      notice?.channel ?? null,
      notice?.before ?? null,
      notice?.head ?? null,
      notice?.tail ?? null,
      notice?.reference ?? null,
      notice?.maxPayloadBytes ?? null,
    ];
    const rows = await this.statements.run<{ item_n: number; event_id: number | string }>(
      this.db,
      'create-items',
      (p) => {
        const built = create(args.map((_, n) => p(n)));
        return { compile: () => built.compile(this.db) };
      },
      args,
    );
    if (rows.length === 0) return [];
    const places = rows.map((row) => Number(row.item_n));
    // Delivered here only where this instance tells its own events (LocalTransport); listeners have the NOTIFY.
    const event = storeEvent(
      tenantId,
      storeId,
      places.map((n) => changes[n]),
    );
    this.feed.deliverRecorded([{ ...event, id: Number(rows[0].event_id), createdOn: now }]);
    return places;
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
    const seqs = new Map(
      rows.map((row) => [`${row.tenant_id}\u0000${row.store_id}\u0000${row.item_id}`, Number(row.seq)]),
    );
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
   * The items on SQLite's writer thread (writeOffThread), in one transaction there with their feed events. Their
   * statements are built first, with markers for their keys (`NewSeq`), which become offsets that the thread adds to
   * the largest key in the table, read in its transaction; each event takes its id from the tenant's counter there
   * (ChangeFeed.recordPublish), answered by the thread. An id that exists already fails the thread's transaction
   * (nothing of it is written): the batch then goes through the main connection, which skips it
   * (`insertInTransaction`).
   */
  private async insertOffThread(items: PreparedItem[]): Promise<Set<number>> {
    const inserted = new Set(items.keys());
    const events = createEvents(items, inserted);
    const now = Date.now();
    const writes = await recordWrites(async (record: Db) => {
      const width = ITEM_ROW_WIDTH + 1;
      await this.statements.run(
        record,
        `insert-items-keyed:${items.length}`,
        (p) =>
          record
            .insertInto('storage_items')
            .values(items.map((_, n) => ({ seq: p(n * width), ...this.itemRowValues(p, n * width + 1) }))),
        items.flatMap((item, n) => [new NewSeq(n), ...this.itemRowArgs(item)]),
      );
      await this.writeRowsOf(
        record,
        items.map((item, n) => ({ item, seq: new NewSeq(n) as unknown as number })),
      );
      for (const event of events) await this.feed.recordPublish(record, event, now);
    });
    let ids: unknown[];
    try {
      ids = await writeOffThread(this.data, keyedWrites(writes), NEW_SEQ_BASE);
    } catch (error) {
      if (!String((error as { code?: unknown }).code).startsWith('SQLITE_CONSTRAINT')) throw error;
      return this.insertInTransaction(items);
    }
    // The events' ids are the last answers: their counters' statements were recorded last.
    const eventIds = ids.slice(ids.length - events.length);
    this.feed.deliverRecorded(events.map((event, n) => ({ ...event, id: Number(eventIds[n]), createdOn: now })));
    return inserted;
  }

  /** The values of an item row for placeholders from `at` on (ITEM_ROW_WIDTH of them, in itemRowArgs' order). */
  private itemRowValues(p: (index: number) => any, at: number) {
    const [created, by] = [p(at + 4), p(at + 5)];
    return {
      tenant_id: p(at),
      store_id: p(at + 1),
      item_id: p(at + 2),
      doc: p(at + 3),
      created_on: created,
      created_by: by,
      updated_on: created,
      updated_by: by,
      idx: p(at + 6),
      rs: p(at + 7),
    };
  }

  private itemRowArgs({ key, doc, docJson, now, by, prepared }: PreparedItem): unknown[] {
    return [
      key.tenantId,
      key.storeId,
      key.itemId,
      docJson,
      now,
      by,
      this.valueIndex.flag(doc),
      this.valueIndex.readerSet(doc, prepared),
    ];
  }

  /** The access rows, value rows and words of inserted items, each kind in multi-row inserts of bound values. */
  private async writeRowsOf(trx: Db, written: ReadonlyArray<{ item: PreparedItem; seq: number }>): Promise<void> {
    const access: unknown[] = [];
    for (const { item, seq } of written) {
      for (const [mode, grantee] of accessGrants(item.doc))
        access.push(item.key.tenantId, item.key.storeId, seq, mode, grantee);
    }
    await this.statements.insertRows(
      trx,
      'insert-access-rows',
      'storage_item_access',
      ACCESS_COLUMNS,
      access,
      ACCESS_ROWS_PER_STATEMENT,
    );
    await this.valueIndex.writeMany(
      trx,
      written.map(({ item, seq }) => ({ scope: item.key, seq, doc: item.doc, prepared: item.prepared })),
    );
  }
}

/** One feed event per tenant and store of the batch, listing its inserted items (store-events.ts). */
async function publishCreates(publish: Publish, items: PreparedItem[], inserted: Set<number>): Promise<void> {
  for (const event of createEvents(items, inserted)) await publish(event);
}

/** The feed events of a batch's inserted items: one per tenant and store. */
function createEvents(items: PreparedItem[], inserted: Set<number>): PublishedEvent[] {
  const written = items.filter((_, n) => inserted.has(n));
  return placesByStore(written).map((places) => {
    const { tenantId, storeId } = written[places[0]].key;
    return storeEvent(
      tenantId,
      storeId,
      places.map((n) => createdChange(written[n])),
    );
  });
}

/** The places of items grouped by tenant and store, in the order of each group's first item. */
function placesByStore(items: ReadonlyArray<{ key: ItemKey }>): number[][] {
  const byStore = new Map<string, number[]>();
  items.forEach(({ key }, n) => {
    const name = `${key.tenantId}\u0000${key.storeId}`;
    const places = byStore.get(name);
    if (places) places.push(n);
    else byStore.set(name, [n]);
  });
  return [...byStore.values()];
}

/** An item's change in its feed event: the item as read, and who may read it. */
function createdChange({ key, doc, now, by }: Pick<NewItem, 'key' | 'doc' | 'now' | 'by'>): StoreItemChange {
  const item = toStoreItem({ seq: 0, doc, createdOn: now, createdBy: by, updatedOn: now, updatedBy: by });
  return { action: 'created', itemId: key.itemId, item, readers: readersOf(doc) };
}

/** The key of the `n`th item of a batch written off thread, before it is known (StoreItemCreates.insertOffThread). */
class NewSeq {
  constructor(readonly n: number) {}
}

/** The first key of a batch written off thread (storage_items.seq of its item 0). */
const NEW_SEQ_BASE = 'SELECT coalesce(max(seq), 0) + 1 FROM storage_items';

/** The statements with every NewSeq as its offset from the batch's first key, marked to have that key added. */
function keyedWrites(writes: readonly ThreadWrite[]): ThreadWrite[] {
  return writes.map(({ sql: text, parameters }) => {
    const keyed: number[] = [];
    const values = parameters.map((v, at) => {
      if (!(v instanceof NewSeq)) return v;
      keyed.push(at);
      return v.n;
    });
    return keyed.length > 0 ? { sql: text, parameters: values, keyed } : { sql: text, parameters };
  });
}
