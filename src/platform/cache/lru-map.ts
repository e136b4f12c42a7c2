/** Values by key, at most `capacity`, the least recently used forgotten first. Pure bookkeeping: no I/O. */
export class LruMap<V> {
  /** In order of last use, the least recent first (a Map keeps insertion order; a use re-inserts). */
  private readonly values = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const value = this.values.get(key);
    if (value !== undefined) {
      this.values.delete(key);
      this.values.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.values.delete(key);
    if (this.values.size >= this.capacity) this.values.delete(this.values.keys().next().value as string);
    this.values.set(key, value);
  }
}
