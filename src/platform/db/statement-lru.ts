/**
 * The names of the statements one connection keeps prepared, at most `capacity`, the least recently used evicted
 * first (postgres-statements.ts closes an evicted one on the server). Pure bookkeeping: no I/O.
 */
export class StatementLru {
  /** In order of last use, the least recent first (a Set keeps insertion order; a use re-inserts). */
  private readonly names = new Set<string>();
  private readonly counts: StatementCounts;

  constructor(
    readonly capacity: number,
    /** Where the hits, misses and evictions are counted: shared by the connections of one pool. */
    counts: StatementCounts = { hits: 0, misses: 0, evictions: 0 },
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be >= 1, not ${capacity}`);
    this.counts = counts;
  }

  get size(): number {
    return this.names.size;
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  /**
   * Marks `name` as used now: answers whether it was kept already (then it is prepared on the connection) and, when
   * keeping it pushed out the least recently used name, that name (to be closed before `name` is prepared).
   */
  use(name: string): { hit: boolean; evicted?: string } {
    if (this.names.delete(name)) {
      this.names.add(name);
      this.counts.hits++;
      return { hit: true };
    }
    this.counts.misses++;
    let evicted: string | undefined;
    if (this.names.size >= this.capacity) {
      evicted = this.names.values().next().value as string;
      this.names.delete(evicted);
      this.counts.evictions++;
    }
    this.names.add(name);
    return evicted === undefined ? { hit: false } : { hit: false, evicted };
  }

  /** Forgets `name` (its preparation failed, so the connection does not hold it). */
  forget(name: string): void {
    this.names.delete(name);
  }

  /** The names kept, the least recently used first (for tests and diagnostics). */
  list(): string[] {
    return [...this.names];
  }
}

/** Counts of a statement cache since the start: uses of a kept statement, first uses (prepared), evictions. */
export interface StatementCounts {
  hits: number;
  misses: number;
  evictions: number;
}
