// Integer ids of names within one store (the paths of the value index, the reader sets of items), created on first
// use and kept in memory once committed: writes then find them without a statement.
import type { Kysely } from 'kysely';
import { SingleFlight } from '../../platform/async/single-flight.js';
import type { StorageTables } from './storage.tables.js';

type Db = Kysely<StorageTables>;

/** The tenant and store of an item (the repository's ItemKey has them). */
export interface ItemScope {
  tenantId: string;
  storeId: string;
}

/** An item's tenant, store and id (unique together). */
export interface ItemKey extends ItemScope {
  itemId: string;
}

/** Runs a job in a write transaction and resolves after its commit (the WriteBatcher's run, or a plain connection). */
export type CommittedRun = <T>(job: (db: Db) => Promise<T>) => Promise<T>;

/** The ids of names in a store, added where missing, in the caller's transaction. */
export type LookUpKeys = (db: Db, scope: ItemScope, names: string[]) => Promise<Map<string, number>>;

export class StoreKeys {
  /**
   * Ids by tenant, store and name, only those seen committed (`prepare`): an id added by a transaction that then
   * rolled back could be handed out again for another name (SQLite reuses the largest id).
   */
  private readonly ids = new Map<string, Map<string, number>>();
  /** Ids in `ids`, all stores together. */
  private idCount = 0;
  /** Lookups under way by `prepare`, by full name: concurrent writes of new names share them. */
  private readonly lookups = new SingleFlight<string, Map<string, number>>();

  constructor(
    private readonly lookUp: LookUpKeys,
    /** Ids kept in memory, at most (then forgotten and looked up again). */
    private readonly cachedMax: number,
  ) {}

  /**
   * Makes sure the names have ids, committed by `run`, and remembers them: writes then find them in memory. Names
   * another `prepare` is looking up already are awaited, not looked up again (concurrent first writes of a store
   * would otherwise each insert and read the same keys, and wait on each other's locks on PostgreSQL).
   */
  async prepare(run: CommittedRun, scope: ItemScope, names: Iterable<string>): Promise<Map<string, number>> {
    const { known, missing } = this.remembered(scope, names);
    if (missing.length === 0) return known;
    const waits: Array<Promise<unknown>> = [];
    const own: string[] = [];
    for (const name of missing) {
      const running = this.lookups.get(fullName(scope, name));
      if (running) waits.push(running.then((found) => known.set(name, found.get(name)!)));
      else own.push(name);
    }
    if (own.length > 0) {
      const lookup = run((db) => this.lookUp(db, scope, own)).then((found) => {
        if (this.idCount + found.size > this.cachedMax) {
          this.ids.clear();
          this.idCount = 0;
        }
        const store = storeName(scope);
        let ids = this.ids.get(store);
        if (!ids) this.ids.set(store, (ids = new Map()));
        for (const [name, id] of found) {
          if (!ids.has(name)) this.idCount++;
          ids.set(name, id);
        }
        return found;
      });
      for (const name of own) void this.lookups.run(fullName(scope, name), () => lookup);
      waits.push(lookup.then((found) => own.forEach((name) => known.set(name, found.get(name)!))));
    }
    await Promise.all(waits);
    return known;
  }

  /** The ids of the names: from memory (`prepare`), else looked up (and added) in the caller's transaction. */
  async inTransaction(trx: Db, scope: ItemScope, names: Iterable<string>): Promise<Map<string, number>> {
    const { known, missing } = this.remembered(scope, names);
    // Not remembered: this transaction may still roll back.
    if (missing.length > 0) for (const [name, id] of await this.lookUp(trx, scope, missing)) known.set(name, id);
    return known;
  }

  /** The names whose ids are in memory, with their ids, and those that are not. */
  private remembered(scope: ItemScope, names: Iterable<string>): { known: Map<string, number>; missing: string[] } {
    const known = new Map<string, number>();
    const missing = new Set<string>();
    const ids = this.ids.get(storeName(scope));
    for (const name of names) {
      if (known.has(name) || missing.has(name)) continue;
      const id = ids?.get(name);
      if (id === undefined) missing.add(name);
      else known.set(name, id);
    }
    return { known, missing: [...missing] };
  }
}

function fullName(scope: ItemScope, name: string): string {
  return `${storeName(scope)}\u0000${name}`;
}

function storeName(scope: ItemScope): string {
  return `${scope.tenantId}\u0000${scope.storeId}`;
}
