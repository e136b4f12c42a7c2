/**
 * A bounded in-process map whose entries stop being served at their own deadline. Used for the per-instance
 * reuse of credential lookups; when full, the oldest entry makes room.
 */
export class ExpiringMap<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();

  constructor(private readonly max: number) {}

  get(key: K, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V, until: number): void {
    if (this.entries.size >= this.max && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }
}
