// The keys an item's value rows and words are written with: its paths' keys (storage_value_keys, with the forms their
// values take) and its reader set (storage_reader_sets), looked up or added before a write and kept in memory.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { forTenant } from '../../platform/db/tenant-scope.js';
import { ExpiringMap } from '../../platform/cache/expiring-map.js';
import { reservedToken, type DocumentIndex } from '../../platform/query/index.js';
import { restrictionGrantees, type ItemDocument } from './item-document.js';
import { StoreKeys, type CommittedRun, type ItemScope } from './store-keys.js';
import type { StorageTables } from './storage.tables.js';

type Db = Kysely<StorageTables>;

/** Paths or reader sets looked up or added by one statement (3 bound values each). */
const KEYS_PER_STATEMENT = 500;
/** Keys of (tenant, store, path) kept in memory, at most (then forgotten and looked up again). */
const KEYS_CACHED_MAX = 100_000;
/** Reader sets of (tenant, store) kept in memory, at most. */
const SETS_CACHED_MAX = 20_000;

/** The keys of the paths and the reader sets of documents about to be written (ItemIndexKeys.prepare). */
export interface PreparedKeys {
  keys: Map<string, number>;
  sets: Map<string, number>;
}

export class ItemIndexKeys {
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

  /** `indexOf`: the document's value index rows and forms (ItemValueIndex.of, computed once per document). */
  constructor(private readonly indexOf: (doc: ItemDocument) => DocumentIndex) {}

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
    const { rows, forms } = this.indexOf(doc);
    const out: string[] = [];
    for (let i = 0; i < rows.length; i++) out.push(rows[i][0]);
    forms?.forEach((_, path) => out.push(path));
    return out;
  }

  /** The forms of the documents' values not known to be in storage_value_keys.forms yet, by key. */
  private formsToAdd(docs: ItemDocument[], keys: Map<string, number>): Map<number, number> {
    const add = new Map<number, number>();
    for (let i = 0; i < docs.length; i++) {
      this.indexOf(docs[i]).forms?.forEach((bits, path) => {
        const id = keys.get(path)!;
        const missing = bits & ~(this.formsKnown.get(id) ?? 0);
        if (missing !== 0) add.set(id, (add.get(id) ?? 0) | missing);
      });
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
  readTokens(scope: ItemScope, doc: ItemDocument): string[] {
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
  async keysOf(trx: Db, scope: ItemScope, doc: ItemDocument): Promise<PreparedKeys> {
    const keys = await this.paths.inTransaction(trx, scope, this.pathsOf(doc));
    const sets = await this.readers.inTransaction(trx, scope, [this.readerName(doc)]);
    // Not remembered: this transaction may still roll back.
    const forms = this.formsToAdd([doc], keys);
    if (forms.size > 0) await this.addForms(trx, forms);
    return { keys, sets };
  }
}

/** The key of a path, from `prepare`. */
export function keyOf(prepared: PreparedKeys, path: string): number {
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
