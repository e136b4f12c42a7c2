// The value index and full-text words of store items (platform/query/value-index.ts; docs/api/storage.md "Value index
// and full-text search"): which rows a document has, and their SQL, in the item's write transaction.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import type { PreparedQueries } from '../../platform/db/prepared-query.js';
import { forTenant } from '../../platform/db/tenant-scope.js';
import { documentIndex, type DocumentIndex } from '../../platform/query/index.js';
import { INDEXED_FIELDS, type ItemDocument } from './item-document.js';
import type { StorageTables } from './storage.tables.js';

type Db = Kysely<StorageTables>;
/** The tenant and store of an item (the repository's ItemKey has them). */
interface ItemScope {
  tenantId: string;
  storeId: string;
}

/** The full-text index of the items' words (Dialect.words). */
const WORDS_TABLE = 'storage_item_words';
/** Value index rows written by one statement (5 bound values each; both engines allow thousands per statement). */
const VALUE_ROWS_PER_STATEMENT = 100;
/** Paths looked up or added by one statement (3 bound values each). */
const KEYS_PER_STATEMENT = 500;
/** Keys of (tenant, store, path) kept in memory, at most (then forgotten and looked up again). */
const KEYS_CACHED_MAX = 100_000;

/** Runs a job in a write transaction and resolves after its commit (the WriteBatcher's run, or a plain connection). */
export type CommittedRun = <T>(job: (db: Db) => Promise<T>) => Promise<T>;

export class ItemValueIndex {
  /** The value index rows of a document, computed once per document written. */
  private readonly indexes = new WeakMap<ItemDocument, DocumentIndex>();
  /**
   * Keys of storage_value_keys by tenant, store and path, only those seen committed (`prepare`): a key added by a
   * transaction that then rolled back could be handed out again for another path (SQLite reuses the largest id).
   */
  private readonly keys = new Map<string, number>();

  constructor(
    private readonly dialect: Dialect,
    private readonly statements: PreparedQueries,
  ) {}

  /** The value index rows of the document (platform/query/value-index.ts), over the fields a query can name. */
  of(doc: ItemDocument): DocumentIndex {
    let index = this.indexes.get(doc);
    if (!index) {
      index = documentIndex(doc as unknown as Record<string, unknown>, INDEXED_FIELDS);
      this.indexes.set(doc, index);
    }
    return index;
  }

  /** storage_items.idx of the document: 1 when its rows are in the value index, 2 when it exceeds the index's caps. */
  flag(doc: ItemDocument): number {
    return this.of(doc).complete ? 1 : 2;
  }

  /**
   * Makes sure the keys of the documents' paths in the store exist, committed by `run`, and remembers them: writes
   * then find every key in memory. Answers the keys of those paths.
   */
  async prepare(run: CommittedRun, scope: ItemScope, docs: ItemDocument[]): Promise<Map<string, number>> {
    const { known, missing } = this.remembered(scope, docs);
    if (missing.length === 0) return known;
    const found = await run((db) => this.lookUp(db, scope, missing));
    if (this.keys.size + found.size > KEYS_CACHED_MAX) this.keys.clear();
    for (const [path, id] of found) {
      this.keys.set(keyName(scope, path), id);
      known.set(path, id);
    }
    return known;
  }

  /** The keys of the paths in the store (storage_value_keys), added where missing; in the caller's transaction. */
  private async lookUp(db: Db, scope: ItemScope, paths: string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (let i = 0; i < paths.length; i += KEYS_PER_STATEMENT) {
      const chunk = paths.slice(i, i + KEYS_PER_STATEMENT);
      await db
        .insertInto('storage_value_keys')
        .values(chunk.map((path) => ({ tenant_id: scope.tenantId, store_id: scope.storeId, path })))
        .onConflict((oc) => oc.columns(['tenant_id', 'store_id', 'path']).doNothing())
        .execute();
      const rows = await forTenant(db, scope.tenantId)
        .selectFrom('storage_value_keys')
        .select(['id', 'path'])
        .where('store_id', '=', scope.storeId)
        .where('path', 'in', chunk)
        .execute();
      for (const r of rows) found.set(r.path, Number(r.id));
    }
    return found;
  }

  /** The keys of the document's paths: from memory (`prepare`), else looked up in the caller's transaction. */
  private async keysOf(trx: Db, scope: ItemScope, doc: ItemDocument): Promise<Map<string, number>> {
    const { known, missing } = this.remembered(scope, [doc]);
    // Not remembered: this transaction may still roll back.
    if (missing.length > 0) for (const [path, id] of await this.lookUp(trx, scope, missing)) known.set(path, id);
    return known;
  }

  /** The paths of the documents whose keys are in memory, with their keys, and those that are not. */
  private remembered(scope: ItemScope, docs: ItemDocument[]): { known: Map<string, number>; missing: string[] } {
    const known = new Map<string, number>();
    const missing = new Set<string>();
    for (const doc of docs) {
      for (const [path] of this.of(doc).rows) {
        if (known.has(path) || missing.has(path)) continue;
        const id = this.keys.get(keyName(scope, path));
        if (id === undefined) missing.add(path);
        else known.set(path, id);
      }
    }
    return { known, missing: [...missing] };
  }

  /** The value rows of a document as `jsonRecords` objects, with the keys of their paths (from `prepare`). */
  records(doc: ItemDocument, keys: Map<string, number>): Array<{ k: number; t: number; e: number; n: number | null; s: string | null }> {
    return this.of(doc).rows.map(([p, t, e, n, s]) => {
      const k = keys.get(p);
      if (k === undefined) throw new Error('storage: value key not prepared');
      return { k, t, e, n, s };
    });
  }

  /** Writes the value rows and words of the item (its key `seq`). */
  async write(trx: Db, key: ItemScope, seq: number, doc: ItemDocument): Promise<void> {
    const { rows, words } = this.of(doc);
    if (words.length > 0) await this.dialect.words.insert(WORDS_TABLE, seq, words).execute(trx);
    if (rows.length === 0) return;
    const keys = await this.keysOf(trx, key, doc);
    // Bound values, one statement per row count (prepared once each): several times cheaper than a JSON parameter
    // taken apart in SQL, and writes of items are the hot path.
    for (let i = 0; i < rows.length; i += VALUE_ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + VALUE_ROWS_PER_STATEMENT);
      await this.statements.run(
        trx,
        `insert-values:${chunk.length}`,
        (p) =>
          trx.insertInto('storage_item_values').values(
            chunk.map((_, n) => ({ item_seq: p(0), vk: p(1 + 5 * n), t: p(2 + 5 * n), elem: p(3 + 5 * n), num: p(4 + 5 * n), str: p(5 + 5 * n) })),
          ),
        [seq, ...chunk.flatMap(([path, t, e, n, s]) => [keys.get(path), t, e, n, s])],
      );
    }
  }

  /** Removes the value rows and words of the item (its key is unique across tenants and stores). */
  async remove(trx: Db, seq: number): Promise<void> {
    await trx.deleteFrom('storage_item_values').where('item_seq', '=', seq).execute();
    await this.dialect.words.remove(WORDS_TABLE, seq).execute(trx);
  }

  /**
   * Puts up to `limit` items that are not in the value index yet (written before it existed: idx 0) into it, in one
   * transaction; answers how many it looked at. Each row is locked and read again first (a no-op update that still
   * requires idx 0), so an item updated meanwhile, which indexed itself, is left alone.
   */
  async indexPending(trx: Db, limit: number): Promise<number> {
    const pending = await trx
      .selectFrom('storage_items')
      .select('seq')
      .where('idx', '<>', 1)
      .where('idx', '=', 0)
      .orderBy('seq')
      .limit(limit)
      .execute();
    if (pending.length === 0) return 0;
    const rows = await trx
      .updateTable('storage_items')
      .set({ idx: sql`idx` })
      .where('seq', 'in', pending.map((r) => Number(r.seq)))
      .where('idx', '=', 0)
      .returning(['seq', 'tenant_id', 'store_id', 'doc'])
      .execute();
    // Rows an interrupted run may have left (none normally): replaced, not added to.
    const seqs = rows.map((r) => Number(r.seq));
    if (seqs.length > 0) await trx.deleteFrom('storage_item_values').where('item_seq', 'in', seqs).execute();
    for (const seq of seqs) await this.dialect.words.remove(WORDS_TABLE, seq).execute(trx);
    const complete: number[] = [];
    const beyondCaps: number[] = [];
    const values: Array<{ q: number; k: number; t: number; e: number; n: number | null; s: string | null }> = [];
    for (const row of rows) {
      const doc = this.dialect.fromJson<ItemDocument>(row.doc);
      const seq = Number(row.seq);
      const index = this.of(doc);
      (index.complete ? complete : beyondCaps).push(seq);
      const keys = await this.keysOf(trx, { tenantId: row.tenant_id, storeId: row.store_id }, doc);
      for (const v of this.records(doc, keys)) values.push({ q: seq, ...v });
      if (index.words.length > 0) await this.dialect.words.insert(WORDS_TABLE, seq, index.words).execute(trx);
    }
    for (let i = 0; i < values.length; i += 5000) {
      await trx
        .insertInto('storage_item_values')
        .columns(['vk', 'item_seq', 't', 'elem', 'num', 'str'])
        .expression(
          trx
            .selectFrom(this.dialect.jsonRecords(JSON.stringify(values.slice(i, i + 5000)), { k: 'bigint', q: 'bigint', t: 'integer', e: 'integer', n: 'double', s: 'text' }).as('r'))
            .select(['r.k', 'r.q', 'r.t', 'r.e', 'r.n', 'r.s'] as any),
        )
        .execute();
    }
    if (complete.length > 0) await trx.updateTable('storage_items').set({ idx: 1 }).where('seq', 'in', complete).execute();
    if (beyondCaps.length > 0) await trx.updateTable('storage_items').set({ idx: 2 }).where('seq', 'in', beyondCaps).execute();
    return pending.length;
  }
}

function keyName(scope: ItemScope, path: string): string {
  return `${scope.tenantId}\u0000${scope.storeId}\u0000${path}`;
}
