import { randomUUID } from 'node:crypto';
import type { Principal } from '../../platform/auth/principal.js';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { UniqueViolation, WriteConflict } from '../../platform/db/db-errors.js';
import { buildDocument, principalGrantees, type ItemDocument } from './item-document.js';
import type { ItemKey, ItemRecord, StoreItemRepository } from './store-item.repository.js';
import type { WriteBatcher } from '../../platform/db/write-batcher.js';
import type { StorageTables } from './storage.tables.js';
import { itemJson } from './item-json.js';
import { STORAGE_ERRORS } from './storage.errors.js';
import type { Transaction } from 'kysely';
import type { ChangeFeed, Publish } from '../../platform/events/index.js';
import { readersOf, storeEvent, type StoreItemChange } from './store-events.js';
import { toStoreItem } from './store-item-record.js';
import {
  MAX_LIMIT,
  type ListQuery,
  type StoreItem,
  type StoreItemBody,
  type StoreList,
  type ExportQuery,
} from './storage.schemas.js';
import { exportText } from './store-export-format.js';
import { keptStore, type KeptLists } from './store-kept-lists.js';
import type { StoreTags } from './store-tags.js';
import { noneMatchHits, type TaggedText } from '../../platform/http/entity-tag.js';
import { SingleFlight } from '../../platform/async/single-flight.js';

/** Thrown inside a write transaction when a concurrent request changed the row under it: run again. */
class ConcurrentChange extends Error {}

const MAX_ATTEMPTS = 8;

const KNOWN_STORES_MAX = 10_000;

/**
 * The rules of the storage API. Access comes from the item's restrictions only (no owner, no admin
 * bypass): readRestriction decides reads, writeRestriction updates and deletes.
 */
export class StorageService {
  /**
   * Stores seen committed by this process: a write to one skips the "create the store" statement. Stores are
   * never deleted while the service runs, so the set cannot go stale; another instance just keeps its own.
   */
  private readonly knownStores = new Set<string>();
  /**
   * A store's row being made sure of (`knowStore`), by the first create of a store this process has not written: the
   * creates beside it wait for that one transaction, then all go to the batches. (Each used to make sure of the row in
   * a transaction of its own: the first burst of creates into a new store, or into any store after a start, went one by
   * one, and on PostgreSQL its first 250 creates cost the server 3.7 ms each against 0.5 ms after.)
   */
  private readonly storesBeingMade = new SingleFlight<string, void>();

  constructor(
    private readonly repo: StoreItemRepository,
    private readonly writes: WriteBatcher<StorageTables>,
    private readonly dialect: Dialect,
    /** Every write tells the store's live streams, on every instance, in its own transaction (store-events.ts). */
    private readonly feed: ChangeFeed,
    /** The entity tags of lists (conditional GETs). */
    private readonly tags: StoreTags,
    /** Lists' answers kept for the same list asked again while its store is unchanged (store-kept-lists.ts). */
    private readonly kept: KeptLists,
  ) {}

  /** After a write through this instance: its store's kept answers go (they would fail the change count's check). */
  private written(tenantId: string, storeId: string): void {
    this.kept.forget(keptStore(tenantId, storeId));
  }

  /** A write transaction of the group commit (WriteBatcher) that may publish on the change feed. */
  private transact<T>(work: (trx: Transaction<StorageTables>, publish: Publish) => Promise<T>): Promise<T> {
    return this.feed.within((job: (trx: Transaction<StorageTables>) => Promise<T>) => this.writes.run(job), work);
  }

  /** Creates an item under a new UUID; answers the id. */
  async create(p: Principal, storeId: string, body: StoreItemBody): Promise<string> {
    await this.knowStore(p.tenantId, storeId, p.loginName);
    const id = await this.retrying(async () => {
      const key = { tenantId: p.tenantId, storeId, itemId: randomUUID() };
      const doc = buildDocument(key.itemId, body);
      // false: a UUID collision, drawn again
      if (!(await this.repo.insertBatched(key, doc, Date.now(), p.loginName))) throw new ConcurrentChange();
      return key.itemId;
    });
    this.written(p.tenantId, storeId);
    return id;
  }

  /**
   * Makes sure of the store's row unless this process knows it (committed on its own: a store without items is in no
   * answer, as the store directory lists only stores where the caller may read an item); creates of the same store
   * meanwhile wait for the same transaction. If it fails, each of them fails with it, and the next create tries again.
   */
  private async knowStore(tenantId: string, storeId: string, by: string): Promise<void> {
    if (this.isKnownStore(tenantId, storeId)) return;
    await this.storesBeingMade.run(`${tenantId}\u0000${storeId}`, async () => {
      await this.writes.run((trx) => this.repo.ensureStore(trx, tenantId, storeId, Date.now(), by));
      this.rememberStore(tenantId, storeId);
    });
  }

  /** The keys of the document's paths in the value index, committed before the item's transaction (mostly in memory). */
  private async prepareValueKeys(key: ItemKey, doc: ItemDocument): Promise<void> {
    await this.repo.valueIndex.prepare((job) => this.writes.run(job), key, [doc]);
  }

  private isKnownStore(tenantId: string, storeId: string): boolean {
    return this.knownStores.has(`${tenantId}\u0000${storeId}`);
  }

  private rememberStore(tenantId: string, storeId: string): void {
    if (this.knownStores.size >= KNOWN_STORES_MAX) this.knownStores.clear();
    this.knownStores.add(`${tenantId}\u0000${storeId}`);
  }

  /** Creates the item under the path id, or replaces it when the caller may write it; answers it as stored. */
  async createOrUpdate(p: Principal, storeId: string, itemId: string, body: StoreItemBody): Promise<StoreItem> {
    const key = { tenantId: p.tenantId, storeId, itemId };
    const doc = buildDocument(itemId, body);
    const grantees = principalGrantees(p);
    const known = this.isKnownStore(p.tenantId, storeId);
    await this.prepareValueKeys(key, doc);
    const record = await this.retrying(() =>
      this.transact(async (trx, publish): Promise<ItemRecord> => {
        const now = Date.now();
        if (!known) await this.repo.ensureStore(trx, p.tenantId, storeId, now, p.loginName);
        const seq = await this.repo.insertIfAbsent(trx, key, doc, now, p.loginName);
        if (seq !== undefined) {
          await this.repo.writeIndexes(trx, key, seq, doc, false);
          const created = { seq, doc, createdOn: now, createdBy: p.loginName, updatedOn: now, updatedBy: p.loginName };
          await publish(storeEvent(p.tenantId, storeId, [changeOf('created', created)]));
          return created;
        }
        const existing = await this.repo.lock(trx, key);
        if (!existing) throw new ConcurrentChange(); // deleted between our insert attempt and the lock
        if (!(await this.repo.hasAccess(trx, key, existing.seq, 'w', grantees)))
          throw STORAGE_ERRORS.noWriteAccess(storeId, itemId);
        await this.repo.update(trx, key, existing.seq, doc, now, p.loginName);
        await this.repo.writeIndexes(trx, key, existing.seq, doc, true);
        const updated = { ...existing, doc, updatedOn: now, updatedBy: p.loginName };
        await publish(storeEvent(p.tenantId, storeId, [changeOf('updated', updated, existing)]));
        return updated;
      }),
    );
    this.written(p.tenantId, storeId);
    this.rememberStore(p.tenantId, storeId);
    return toStoreItem(record);
  }

  /** The item as read (StoreItemSchema), as JSON text: the stored document is spliced, not parsed (item-json.ts). */
  async read(p: Principal, storeId: string, itemId: string): Promise<string> {
    const found = await this.repo.findWithReadAccess({ tenantId: p.tenantId, storeId, itemId }, principalGrantees(p));
    if (!found) throw STORAGE_ERRORS.itemNotFound(storeId, itemId);
    if (!found.canRead) throw STORAGE_ERRORS.noReadAccess(storeId, itemId);
    return itemJson(found.item);
  }

  /**
   * A conditional list: its tag, and its JSON text unless `ifNoneMatch` names the tag (then 304, no page read). Where
   * neither `If-None-Match` nor a kept answer can spare the page (the first list, or the first after this instance
   * wrote to the store), the page is read with the store's change count as its own statements read it, and kept;
   * else the count is read first (one statement for a turn's reads): a kept answer serves where it was read at that
   * count, so the database, not this instance, says whether the store changed (a write through another instance).
   */
  async listTagged(
    p: Principal,
    storeId: string,
    q: ListQuery,
    ifNoneMatch: string | string[] | undefined,
  ): Promise<TaggedText> {
    const store = keptStore(p.tenantId, storeId);
    const key = this.tags.listKey(p, q);
    const changesFirst = () => this.tags.storeChanges(p, storeId);
    const generation = this.kept.generation(store);
    // Looked up once: where the count read below is the one it was kept at, the store is as its rows were.
    const kept = this.kept.get(store, key);
    if (ifNoneMatch === undefined && kept === undefined) {
      const { text, changes } = await this.readList(p, storeId, q, changesFirst);
      this.kept.keep(store, key, generation, changes, text);
      return { tag: this.tags.listTagOf(p, storeId, key, changes), text };
    }
    const changes = await changesFirst();
    const tag = this.tags.listTagOf(p, storeId, key, changes);
    if (noneMatchHits(ifNoneMatch, tag)) return { tag };
    if (kept !== undefined && kept.changes === changes) return { tag, text: kept.text };
    // The tag is of the count read before the page: never newer than the answer it goes with.
    const read = await this.readList(p, storeId, q, async () => changes);
    this.kept.keep(store, key, generation, read.changes, read.text);
    return { tag, text: read.text };
  }

  /**
   * A page of the items the caller may read, as JSON text (ItemListSchema) with the stored documents spliced in
   * (item-json.ts), and the store's change count no newer than its rows, for its tag: read by the list's own
   * statements where they read it (a walk's), else by `changesFirst` before them. A store that does not exist is an
   * empty one.
   */
  private async readList(
    p: Principal,
    storeId: string,
    q: ListQuery,
    changesFirst: () => Promise<string>,
  ): Promise<{ text: string; changes: string }> {
    const caller = { tenantId: p.tenantId, storeId, grantees: principalGrantees(p) };
    const { query, filter, sort, timezoneName, timezoneOffset } = q;
    const input = { query, filter, sort, timezoneName, timezoneOffset };
    const bounds = { start: q.start, limit: Math.min(q.limit, MAX_LIMIT) };
    const page = await this.repo.lists.read(caller, input, bounds, changesFirst);
    if (page.changes === undefined) throw new Error('storage: a list asked for its change count read none');
    const text = `{"total":${page.total},"items":[${page.records.map(itemJson).join(',')}]}`;
    return { text, changes: page.changes };
  }

  /**
   * The items the caller may read that the list parameters select, as the text of an export, read page by page as
   * the caller takes it (store-export.ts). Invalid parameters throw before the first chunk.
   */
  async export(p: Principal, storeId: string, q: ExportQuery, pageSize: number): Promise<AsyncGenerator<string>> {
    const caller = { tenantId: p.tenantId, storeId, grantees: principalGrantees(p) };
    const { query, filter, sort, timezoneName, timezoneOffset } = q;
    const pages = await this.repo.exportPages(caller, { query, filter, sort, timezoneName, timezoneOffset }, pageSize);
    return exportText(q.format, pages);
  }

  /** The stores of the caller's tenant in which it may read items, with how many (store-directory.ts). */
  listStores(p: Principal, start: number, limit: number): Promise<StoreList> {
    return this.repo.storeDirectory({ tenantId: p.tenantId, grantees: principalGrantees(p) }, start, limit);
  }

  /** Deletes the item when the caller may write it; answers the item as it was. */
  async delete(p: Principal, storeId: string, itemId: string): Promise<StoreItem> {
    const key: ItemKey = { tenantId: p.tenantId, storeId, itemId };
    const grantees = principalGrantees(p);
    const record = await this.retrying(() =>
      this.transact(async (trx, publish) => {
        const existing = await this.repo.lock(trx, key);
        if (!existing) throw STORAGE_ERRORS.itemNotFound(storeId, itemId);
        if (!(await this.repo.hasAccess(trx, key, existing.seq, 'w', grantees)))
          throw STORAGE_ERRORS.noWriteAccess(storeId, itemId);
        await this.repo.delete(trx, key, existing.seq);
        const deleted: StoreItemChange = { action: 'deleted', itemId, readersBefore: readersOf(existing.doc) };
        await publish(storeEvent(p.tenantId, storeId, [deleted]));
        return existing;
      }),
    );
    this.written(p.tenantId, storeId);
    return toStoreItem(record);
  }

  /** Runs a write transaction again after a lost race (unique violation, serialization failure, vanished row). */
  private async retrying<T>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        const meaning = this.dialect.toDomainError(err);
        const retryable =
          err instanceof ConcurrentChange || meaning instanceof UniqueViolation || meaning instanceof WriteConflict;
        if (!retryable || attempt >= MAX_ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
      }
    }
  }
}

export { toStoreItem } from './store-item-record.js';

/** The change of a created or updated item for the feed; `before`: the item as it was (updates). */
function changeOf(action: 'created' | 'updated', after: ItemRecord, before?: ItemRecord): StoreItemChange {
  const change: StoreItemChange = {
    action,
    itemId: after.doc.id,
    item: toStoreItem(after),
    readers: readersOf(after.doc),
  };
  if (before) change.readersBefore = readersOf(before.doc);
  return change;
}
