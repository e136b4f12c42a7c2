/**
 * Concurrent calls for one key share one running call: the first starts it, the others get its promise until
 * it settles. A burst of requests that all miss a cache (a cold start, an entry just expired) then costs one
 * lookup instead of one each, and they do not queue on each other's locks.
 */
export class SingleFlight<K, V> {
  private readonly running = new Map<K, Promise<V>>();

  run(key: K, start: () => Promise<V>): Promise<V> {
    const found = this.running.get(key);
    if (found) return found;
    const call = start();
    this.running.set(key, call);
    const forget = () => {
      if (this.running.get(key) === call) this.running.delete(key);
    };
    // Both outcomes handled here, so that a failure reaches only the callers (no unhandled rejection).
    call.then(forget, forget);
    return call;
  }

  /** The running call of the key, if any. */
  get(key: K): Promise<V> | undefined {
    return this.running.get(key);
  }
}
