// The value index and full-text words of store items (platform/query/value-index.ts; docs/api/storage.md "Value index
// and full-text search"): which rows a document has, and their SQL, in the item's write transaction.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Dialect, WordRow } from '../../platform/db/dialects/dialect.js';
import type { PreparedQueries } from '../../platform/db/prepared-query.js';
import { forTenant } from '../../platform/db/tenant-scope.js';
import { ExpiringMap } from '../../platform/cache/expiring-map.js';
import { documentIndex, reservedToken, type DocumentIndex } from '../../platform/query/index.js';
import { INDEXED_FIELDS, restrictionGrantees, type ItemDocument } from './item-document.js';
import { StoreKeys, type CommittedRun, type ItemScope } from './store-keys.js';
import type { StorageTables } from './storage.tables.js';
import type { StorageSql } from './dialects/index.js';
import { ItemTermCounts, type CountedWords } from './item-term-counts.js';

type Db = Kysely<StorageTables>;

/** The full-text index of the items' words (Dialect.words). */
const WORDS_TABLE = 'storage_item_words';
/** Value index rows written by one statement (7 bound values each; both engines allow thousands). */
const VALUE_ROWS_PER_STATEMENT = 100;
/** Items whose inserted value rows one counting statement takes (StorageSql.countInsertedValues): a batch of creates. */
const COUNTED_ITEMS_PER_STATEMENT = 64;
/** The columns of a value index row, in the order writeMany lists their values. */
const VALUE_COLUMNS = ['vk', 'item_seq', 'rs', 't', 'elem', 'num', 'str'] as const;
/** Items whose words one statement writes. */
const WORD_ROWS_PER_STATEMENT = 100;
/** Paths or reader sets looked up or added by one statement (3 bound values each). */
const KEYS_PER_STATEMENT = 500;
/** Keys of (tenant, store, path) kept in memory, at most (then forgotten and looked up again). */
const KEYS_CACHED_MAX = 100_000;
/** Reader sets of (tenant, store) kept in memory, at most. */
const SETS_CACHED_MAX = 20_000;

/** The keys of the paths and the reader sets of documents about to be written (ItemValueIndex.prepare). */
export interface PreparedKeys {
  keys: Map<string, number>;
  sets: Map<string, number>;
}

/** An item whose value rows and words are to be written (ItemValueIndex.writeMany), with its prepared keys. */
export interface IndexedItem {
  scope: ItemScope;
  seq: number;
  doc: ItemDocument;
  prepared: PreparedKeys;
}

export class ItemValueIndex {
  /** The value index rows of a document, computed once per document written. */
  private readonly indexes = new WeakMap<ItemDocument, DocumentIndex>();
  /** The reader set name of a document (`readerSetName`), computed once per document written. */
  private readonly readerNames = new WeakMap<ItemDocument, string>();
  /** readTokens' answers, by tenant, store and reader set. */
  private readonly tokensByReaders = new ExpiringMap<string, string[]>(SETS_CACHED_MAX);
  /** Keys of the paths of a store's value index (storage_value_keys.id). */
  private readonly paths = new StoreKeys((db, scope, paths) => this.lookUpPaths(db, scope, paths), KEYS_CACHED_MAX);
  /** Forms (VALUE_FORM bits) known to be in storage_value_keys.forms, by key: at least these (written or read committed). */
  private readonly formsKnown = new Map<number, number>();
  /** Forms being added by a `prepare` (not committed yet), by key: the bits and the commit to await. */
  private readonly formsAdding = new Map<number, { bits: number; done: Promise<void> }>();
  /** Reader sets (storage_reader_sets.id): who may read an item, the `rs` of its value rows. */
  private readonly readers = new StoreKeys(
    (db, scope, names) => this.lookUpReaderSets(db, scope, names),
    SETS_CACHED_MAX,
  );

  /** Kept counts of the words (storage_term_counts), in the transaction of every write of words. */
  private readonly termCounts: ItemTermCounts;

  constructor(
    private readonly dialect: Dialect,
    private readonly statements: PreparedQueries,
    private readonly storageSql: StorageSql,
  ) {
    this.termCounts = new ItemTermCounts(storageSql, statements);
  }

  /** The value index rows of the document (platform/query/value-index.ts), over the fields a query can name. */
  of(doc: ItemDocument): DocumentIndex {
    let index = this.indexes.get(doc);
    if (!index) {
      index = documentIndex(doc as unknown as Record<string, unknown>, INDEXED_FIELDS, { forms: true });
      this.indexes.set(doc, index);
    }
    return index;
  }

  /** storage_items.idx of the document: 1 when its rows are in the value index, 2 when it exceeds the index's caps. */
  flag(doc: ItemDocument): number {
    return this.of(doc).complete ? 1 : 2;
  }

  /**
   * Makes sure the keys of the documents' paths and their reader sets exist in the store, committed by `run`, and
   * remembers them: writes then find every key in memory.
   */
  async prepare(run: CommittedRun, scope: ItemScope, docs: ItemDocument[]): Promise<PreparedKeys> {
    const keys = await this.paths.prepare(
      run,
      scope,
      docs.flatMap((doc) => this.pathsOf(doc)),
    );
    const sets = await this.readers.prepare(
      run,
      scope,
      docs.map((doc) => this.readerName(doc)),
    );
    // Forms another prepare is adding already are awaited, not added again: concurrent first writes of a store
    // would otherwise each update the same keys' rows, one after the other (their row locks, on PostgreSQL).
    const waits: Array<Promise<unknown>> = [];
    const own = new Map<number, number>();
    for (const [id, bits] of this.formsToAdd(docs, keys)) {
      const adding = this.formsAdding.get(id);
      if (adding && (bits & ~adding.bits) === 0) waits.push(adding.done);
      else own.set(id, bits);
    }
    if (own.size > 0) {
      const done = run((db) => this.addForms(db, own)).then(() => {
        if (this.formsKnown.size + own.size > KEYS_CACHED_MAX) this.formsKnown.clear();
        for (const [id, bits] of own) this.formsKnown.set(id, (this.formsKnown.get(id) ?? 0) | bits);
      });
      for (const [id, bits] of own) this.formsAdding.set(id, { bits, done });
      const forget = () => {
        for (const id of own.keys()) if (this.formsAdding.get(id)?.done === done) this.formsAdding.delete(id);
      };
      done.then(forget, forget);
      waits.push(done);
    }
    await Promise.all(waits);
    return { keys, sets };
  }

  /** The paths of the document that have a key: those of its rows and of every value (objects and arrays too). */
  private pathsOf(doc: ItemDocument): string[] {
    const index = this.of(doc);
    return [...index.rows.map(([path]) => path), ...(index.forms?.keys() ?? [])];
  }

  /** The forms of the documents' values not known to be in storage_value_keys.forms yet, by key. */
  private formsToAdd(docs: ItemDocument[], keys: Map<string, number>): Map<number, number> {
    const add = new Map<number, number>();
    for (const doc of docs) {
      for (const [path, bits] of this.of(doc).forms ?? []) {
        const id = keys.get(path)!;
        const missing = bits & ~(this.formsKnown.get(id) ?? 0);
        if (missing !== 0) add.set(id, (add.get(id) ?? 0) | missing);
      }
    }
    return add;
  }

  /** Adds forms to the paths' keys (they only ever grow: a form seen once is assumed possible from then on). */
  private async addForms(db: Db, forms: Map<number, number>): Promise<void> {
    // In the order of the keys, so that two transactions never wait for each other's rows in turn.
    for (const [id, bits] of [...forms].sort((a, b) => a[0] - b[0])) {
      await db
        .updateTable('storage_value_keys')
        .set({ forms: sql`forms | ${bits}` })
        .where('id', '=', id)
        .execute();
    }
  }

  /** The keys of the paths in the store (storage_value_keys), added where missing; in the caller's transaction. */
  private async lookUpPaths(db: Db, scope: ItemScope, paths: string[]): Promise<Map<string, number>> {
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

  /**
   * The reader sets of the store (storage_reader_sets, by the hash of their names), added where missing with a row
   * per grantee (storage_reader_set_grantees); in the caller's transaction.
   */
  private async lookUpReaderSets(db: Db, scope: ItemScope, names: string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (let i = 0; i < names.length; i += KEYS_PER_STATEMENT) {
      const byHash = new Map(
        names.slice(i, i + KEYS_PER_STATEMENT).map((name) => [createHash('sha256').update(name).digest('hex'), name]),
      );
      await db
        .insertInto('storage_reader_sets')
        .values(
          [...byHash.keys()].map((hash) => ({
            tenant_id: scope.tenantId,
            store_id: scope.storeId,
            grantees_hash: hash,
          })),
        )
        .onConflict((oc) => oc.columns(['tenant_id', 'store_id', 'grantees_hash']).doNothing())
        .execute();
      const rows = await forTenant(db, scope.tenantId)
        .selectFrom('storage_reader_sets')
        .select(['id', 'grantees_hash'])
        .where('store_id', '=', scope.storeId)
        .where('grantees_hash', 'in', [...byHash.keys()])
        .execute();
      const grants = rows.flatMap((r) =>
        (JSON.parse(byHash.get(r.grantees_hash)!) as string[]).map((grantee) => ({
          tenant_id: scope.tenantId,
          store_id: scope.storeId,
          grantee,
          set_id: Number(r.id),
        })),
      );
      for (let j = 0; j < grants.length; j += KEYS_PER_STATEMENT) {
        await db
          .insertInto('storage_reader_set_grantees')
          .values(grants.slice(j, j + KEYS_PER_STATEMENT))
          .onConflict((oc) => oc.columns(['tenant_id', 'store_id', 'grantee', 'set_id']).doNothing())
          .execute();
      }
      for (const r of rows) found.set(byHash.get(r.grantees_hash)!, Number(r.id));
    }
    return found;
  }

  /**
   * The tokens of the grantees who may read the document, by store and reader set: each is a hash (reservedToken),
   * and the items of a store share few reader sets.
   */
  private readTokens(scope: ItemScope, doc: ItemDocument): string[] {
    const key = `${scope.tenantId}\u0000${scope.storeId}\u0000${this.readerName(doc)}`;
    let tokens = this.tokensByReaders.get(key);
    if (!tokens) {
      tokens = grantTokens(scope, [...new Set(restrictionGrantees(doc.readRestriction))]);
      this.tokensByReaders.set(key, tokens, Number.POSITIVE_INFINITY);
    }
    return tokens;
  }

  private readerName(doc: ItemDocument): string {
    let name = this.readerNames.get(doc);
    if (name === undefined) {
      name = readerSetName(doc);
      this.readerNames.set(doc, name);
    }
    return name;
  }

  /**
   * The entries of the document in the words index (Dialect.words) as one list: its words and, when it has any, the
   * tokens of the grantees who may read it (`grantTokens`), which let a bare term find only readable items.
   */
  wordsAndTokens(scope: ItemScope, doc: ItemDocument): string[] {
    const { words } = this.of(doc);
    return words.length > 0 ? [...words, ...this.readTokens(scope, doc)] : [];
  }

  /** The reader set of the document (its `rs`), from `prepare`. */
  readerSet(doc: ItemDocument, prepared: PreparedKeys): number {
    const id = prepared.sets.get(this.readerName(doc));
    if (id === undefined) throw new Error('storage: reader set not prepared');
    return id;
  }

  /** The reader set of the document (its item row's `rs`): from memory (`prepare`), else in the caller's transaction. */
  async readerSetIn(trx: Db, scope: ItemScope, doc: ItemDocument): Promise<number> {
    const sets = await this.readers.inTransaction(trx, scope, [this.readerName(doc)]);
    return this.readerSet(doc, { keys: new Map(), sets });
  }

  /** The keys of the document's paths and its reader set: from memory (`prepare`), else in the caller's transaction. */
  private async keysOf(trx: Db, scope: ItemScope, doc: ItemDocument): Promise<PreparedKeys> {
    const keys = await this.paths.inTransaction(trx, scope, this.pathsOf(doc));
    const sets = await this.readers.inTransaction(trx, scope, [this.readerName(doc)]);
    // Not remembered: this transaction may still roll back.
    const forms = this.formsToAdd([doc], keys);
    if (forms.size > 0) await this.addForms(trx, forms);
    return { keys, sets };
  }

  /** The value rows of a document as `jsonRecords` objects, with the keys of their paths (from `prepare`). */
  records(
    doc: ItemDocument,
    prepared: PreparedKeys,
  ): Array<{ k: number; t: number; e: number; n: number | null; s: string | null }> {
    return this.of(doc).rows.map(([p, t, e, n, s]) => ({ k: keyOf(prepared, p), t, e, n, s }));
  }

  /** Writes the value rows and words of the item (its key `seq`). */
  async write(trx: Db, key: ItemScope, seq: number, doc: ItemDocument): Promise<void> {
    const { rows, words } = this.of(doc);
    if (rows.length === 0 && words.length === 0) return;
    await this.writeMany(trx, [{ scope: key, seq, doc, prepared: await this.keysOf(trx, key, doc) }]);
  }

  /**
   * Writes the value rows and words of items whose keys are prepared (`prepare`), all of them in a few statements: the
   * creates of a batch (store-item-creates.ts) pay for their statements once, not once each.
   */
  async writeMany(trx: Db, items: readonly IndexedItem[]): Promise<void> {
    const words: WordRow[] = [];
    const counted: CountedWords[] = [];
    const values: unknown[] = [];
    const valued: number[] = [];
    for (const { scope, seq, doc, prepared } of items) {
      const index = this.of(doc);
      if (index.words.length === 0 && index.rows.length === 0) continue;
      const rs = this.readerSet(doc, prepared);
      if (index.words.length > 0) {
        words.push({ seq, words: index.words, tokens: this.readTokens(scope, doc) });
        counted.push({ rs, words: index.words });
      }
      if (index.rows.length === 0) continue;
      valued.push(seq);
      // Flat, not as `records`' objects: every create passes here (an object per row: 4-7% fewer creates in process).
      for (const [path, t, e, n, s] of index.rows) values.push(keyOf(prepared, path), seq, rs, t, e, n, s);
    }
    for (let i = 0; i < words.length; i += WORD_ROWS_PER_STATEMENT) {
      await this.dialect.words.insert(WORDS_TABLE, words.slice(i, i + WORD_ROWS_PER_STATEMENT)).execute(trx);
    }
    await this.termCounts.add(trx, counted);
    await this.statements.insertRows(
      trx,
      'insert-value-rows',
      'storage_item_values',
      VALUE_COLUMNS,
      values,
      VALUE_ROWS_PER_STATEMENT,
    );
    await this.countInserted(trx, valued);
  }

  /**
   * Adds the value rows just inserted for the items `seqs` to the kept counts, where the engine counts inserts by
   * statement (StorageSql.countInsertedValues; elsewhere a trigger has counted them). A statement per up to
   * COUNTED_ITEMS_PER_STATEMENT items, prepared per item count.
   */
  private async countInserted(trx: Db, seqs: readonly number[]): Promise<void> {
    const statement = this.storageSql.countInsertedValues;
    if (!statement) return;
    for (let at = 0; at < seqs.length; at += COUNTED_ITEMS_PER_STATEMENT) {
      const chunk = seqs.slice(at, at + COUNTED_ITEMS_PER_STATEMENT);
      await this.statements.run(
        trx,
        `count-inserted-values:${chunk.length}`,
        (p) => {
          const built = statement(chunk.map((_, n) => p(n)));
          return { compile: () => built.compile(trx) };
        },
        chunk,
      );
    }
  }

  /** Removes the value rows and words of the item (its key is unique across tenants and stores). */
  async remove(trx: Db, seq: number): Promise<void> {
    await trx.deleteFrom('storage_item_values').where('item_seq', '=', seq).execute();
    await this.removeWords(trx, seq);
  }

  /**
   * Removes the item's words row, taken out of the kept counts under the item's reader set as its row has it: before
   * that changes (an update of the row, StoreItemRepository.update), or the counts would lose it under the new one.
   */
  async removeWords(trx: Db, seq: number): Promise<void> {
    await this.termCounts.forget(trx, seq);
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
      .where(
        'seq',
        'in',
        pending.map((r) => Number(r.seq)),
      )
      .where('idx', '=', 0)
      .returning(['seq', 'tenant_id', 'store_id', 'doc'])
      .execute();
    // Rows an interrupted run may have left (none normally): replaced, not added to.
    const seqs = rows.map((r) => Number(r.seq));
    if (seqs.length > 0) await trx.deleteFrom('storage_item_values').where('item_seq', 'in', seqs).execute();
    for (const seq of seqs) await this.removeWords(trx, seq);
    // The items' new idx and reader set, grouped so that each pair is one update.
    const flagged = new Map<string, { idx: number; rs: number; seqs: number[] }>();
    const values: Array<{ q: number; r: number; k: number; t: number; e: number; n: number | null; s: string | null }> =
      [];
    const counted: CountedWords[] = [];
    for (const row of rows) {
      const doc = this.dialect.fromJson<ItemDocument>(row.doc);
      const seq = Number(row.seq);
      const index = this.of(doc);
      const prepared = await this.keysOf(trx, { tenantId: row.tenant_id, storeId: row.store_id }, doc);
      const r = this.readerSet(doc, prepared);
      const idx = index.complete ? 1 : 2;
      const group = flagged.get(`${idx} ${r}`) ?? { idx, rs: r, seqs: [] };
      flagged.set(`${idx} ${r}`, group);
      group.seqs.push(seq);
      for (const v of this.records(doc, prepared)) values.push({ q: seq, r, ...v });
      const scope = { tenantId: row.tenant_id, storeId: row.store_id };
      if (index.words.length > 0) {
        await this.dialect.words
          .insert(WORDS_TABLE, [{ seq, words: index.words, tokens: this.readTokens(scope, doc) }])
          .execute(trx);
        counted.push({ rs: r, words: index.words });
      }
    }
    await this.termCounts.add(trx, counted);
    for (let i = 0; i < values.length; i += 5000) {
      await trx
        .insertInto('storage_item_values')
        .columns(['vk', 'item_seq', 'rs', 't', 'elem', 'num', 'str'])
        .expression(
          trx
            .selectFrom(
              this.dialect
                .jsonRecords(JSON.stringify(values.slice(i, i + 5000)), {
                  k: 'bigint',
                  q: 'bigint',
                  r: 'bigint',
                  t: 'integer',
                  e: 'integer',
                  n: 'double',
                  s: 'text',
                })
                .as('r'),
            )
            .select(['r.k', 'r.q', 'r.r', 'r.t', 'r.e', 'r.n', 'r.s'] as any),
        )
        .execute();
    }
    await this.countInserted(trx, [...new Set(values.map((v) => v.q))]);
    for (const { idx, rs, seqs: flaggedSeqs } of flagged.values()) {
      await trx.updateTable('storage_items').set({ idx, rs }).where('seq', 'in', flaggedSeqs).execute();
    }
    return pending.length;
  }
}

/** The key of a path, from `prepare`. */
function keyOf(prepared: PreparedKeys, path: string): number {
  const k = prepared.keys.get(path);
  if (k === undefined) throw new Error('storage: value key not prepared');
  return k;
}

/** The name of the document's reader set: its read grantees, sorted, as JSON (its hash keys storage_reader_sets). */
function readerSetName(doc: ItemDocument): string {
  return JSON.stringify([...new Set(restrictionGrantees(doc.readRestriction))].sort());
}

/**
 * The words index's tokens of grantees of a store (text-terms.ts reservedToken): an item's words row holds those of
 * the grantees who may read it, and a bare term of a list requires one of the caller's.
 */
export function grantTokens(scope: ItemScope, grantees: string[]): string[] {
  return grantees.map((grantee) => reservedToken(scope.tenantId, scope.storeId, grantee));
}
