import { ExpiringMap } from '../cache/expiring-map.js';
import type { ChangeFeed } from './change-feed.js';

/**
 * Answers (JSON text) kept until the next write of their partition (a tenant) on any instance: for lists that callers
 * poll far more often than they change. Writers publish an event of `topic` for the partition in the write's
 * transaction (the feed's `partition` is the partition).
 *
 * Exactness: each partition has a generation, raised by every write's event (on every instance, through the change
 * feed) and at once by the writing instance itself (`invalidate`); an answer is stored with the generation read before
 * its query, and served only while that generation is current, so an answer computed before a write never outlives
 * the write's event. While the feed's listener is down nothing is cached; when it comes back everything is forgotten.
 */
export class FeedCache {
  private readonly generations = new Map<string, number>();
  private readonly answers: ExpiringMap<string, { generation: number; text: string }>;
  private readonly stops: Array<() => void> = [];

  constructor(
    private readonly feed: ChangeFeed,
    private readonly topic: string,
    private readonly ttlMs: number,
    maxEntries = 10_000,
  ) {
    this.answers = new ExpiringMap(maxEntries);
  }

  get enabled(): boolean {
    return this.ttlMs > 0 && this.feed.connected;
  }

  generation(partition: string): number {
    return this.generations.get(partition) ?? 0;
  }

  get(partition: string, key: string): string | undefined {
    if (!this.enabled) return undefined;
    const hit = this.answers.get(`${partition}\u0000${key}`);
    return hit && hit.generation === this.generation(partition) ? hit.text : undefined;
  }

  set(partition: string, key: string, generation: number, text: string): void {
    if (this.enabled && generation === this.generation(partition))
      this.answers.set(`${partition}\u0000${key}`, { generation, text }, Date.now() + this.ttlMs);
  }

  invalidate(partition: string): void {
    this.generations.set(partition, this.generation(partition) + 1);
  }

  start(): void {
    this.stops.push(
      this.feed.subscribe(this.topic, (e) => this.invalidate(e.tenantId)),
      this.feed.onResync(() => {
        for (const partition of this.generations.keys()) this.invalidate(partition);
        this.answers.clear();
      }),
    );
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
  }
}
