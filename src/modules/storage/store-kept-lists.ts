// Lists' answers kept for the same list asked again: a page that many clients poll is read once per change of its
// store, not once per request. An answer is kept with the store's change count its rows were read at, and served
// only after the count has been read again and found the same (StorageService.listTagged): the database decides, so
// a write through any instance, or any path that raises the count, makes it unusable at once. A write through this
// instance also drops its store's answers here (`forget`), so that the list after it does not read the count twice.

/** An answer as kept: the JSON text and the store's change count its rows were read at. */
export interface KeptList {
  changes: string;
  text: string;
}

interface Entry extends KeptList {
  store: string;
  until: number;
}

export interface KeptListsLimits {
  /** How long an answer is kept (ms); 0: none is. */
  ttlMs: number;
  /** The kept answers' text together, in characters: when full, the least recently kept go first. */
  maxChars: number;
}

/** Stores whose writes are told apart (KeptLists.generation); past that, a write to another one starts afresh. */
const MAX_GENERATIONS = 10_000;

/** A longer answer is not kept: it would push out many small ones, and a big page is rarely polled. */
const ANSWER_SHARE = 16;

export class KeptLists {
  /** By store and list key; in the order they were kept (a Map keeps insertion order): the oldest first. */
  private readonly answers = new Map<string, Entry>();
  /** The keys kept of each store, so that a write drops its store's answers without a scan. */
  private readonly byStore = new Map<string, Set<string>>();
  /**
   * Raised by each `forget` of the store: an answer read while this instance wrote to its store (read at the count
   * before the write, kept after it) is not kept, or the list after the write would read the count, find it changed,
   * and read the page too.
   */
  private readonly generations = new Map<string, number>();
  /** Raised when the generations are forgotten (too many stores written to): no answer read before then is kept. */
  private epoch = 0;
  private chars = 0;

  constructor(private readonly limits: KeptListsLimits) {}

  /** The answer kept for the list (`key`) of the store, if any and not expired. */
  get(store: string, key: string, now = Date.now()): KeptList | undefined {
    const full = `${store}\u0000${key}`;
    const entry = this.answers.get(full);
    if (!entry) return undefined;
    if (entry.until > now) return entry;
    this.drop(full, entry);
    return undefined;
  }

  /** The store's generation, to be read before an answer's rows and handed to `keep` with it. */
  generation(store: string): string {
    return `${this.epoch}.${this.generations.get(store) ?? 0}`;
  }

  /**
   * Keeps an answer read at the store's change count `changes` (not newer than its rows), unless this instance wrote to
   * the store since `generation` was read.
   */
  keep(store: string, key: string, generation: string, changes: string, text: string, now = Date.now()): void {
    const { ttlMs, maxChars } = this.limits;
    if (ttlMs <= 0 || text.length > maxChars / ANSWER_SHARE || generation !== this.generation(store)) return;
    const full = `${store}\u0000${key}`;
    const old = this.answers.get(full);
    if (old) this.drop(full, old);
    while (this.chars + text.length > maxChars) {
      const [oldest, entry] = this.answers.entries().next().value!;
      this.drop(oldest, entry);
    }
    this.answers.set(full, { store, changes, text, until: now + ttlMs });
    this.chars += text.length;
    let keys = this.byStore.get(store);
    if (!keys) this.byStore.set(store, (keys = new Set()));
    keys.add(full);
  }

  /** Drops the store's answers: this instance wrote to it. */
  forget(store: string): void {
    // A number for each store written to, until there are too many: then all go, and the epoch says so.
    if (this.generations.size >= MAX_GENERATIONS && !this.generations.has(store)) {
      this.generations.clear();
      this.epoch++;
    }
    this.generations.set(store, (this.generations.get(store) ?? 0) + 1);
    const keys = this.byStore.get(store);
    if (!keys) return;
    for (const full of [...keys]) {
      const entry = this.answers.get(full);
      if (entry) this.drop(full, entry);
    }
  }

  private drop(full: string, entry: Entry): void {
    this.answers.delete(full);
    this.chars -= entry.text.length;
    const keys = this.byStore.get(entry.store);
    keys?.delete(full);
    if (keys?.size === 0) this.byStore.delete(entry.store);
  }
}

/** The key of a store among the kept answers (the tenant's and the store's ids). */
export const keptStore = (tenantId: string, storeId: string): string => `${tenantId}\u0000${storeId}`;
