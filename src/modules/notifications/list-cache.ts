import { ExpiringMap } from '../../platform/cache/expiring-map.js';
import type { ChangeFeed } from '../../platform/events/index.js';
import type { Visibility } from './notification.js';
import { NOTIFICATION_TOPIC } from './notification-topic.js';

/**
 * Answers of the list, kept per caller's visibility and page until the next notification write of the tenant on any
 * instance: a list costs a read of every recipient row naming the caller (milliseconds at thousands of visible
 * notifications), while callers poll it far more often than notifications change.
 *
 * Exactness: each tenant has a generation, raised by every write's event (on every instance, through the change
 * feed) and at once by the writing instance itself; an answer is stored with the generation read before its query,
 * and served only while that generation is current, so an answer computed before a write never outlives the write's
 * event. While the feed's listener is down nothing is cached; when it comes back everything is forgotten.
 */
export class ListCache {
  private readonly generations = new Map<string, number>();
  private readonly answers: ExpiringMap<string, { generation: number; text: string }>;
  private readonly stops: Array<() => void> = [];

  constructor(private readonly feed: ChangeFeed, private readonly ttlMs: number, maxEntries = 10_000) {
    this.answers = new ExpiringMap(maxEntries);
  }

  get enabled(): boolean {
    return this.ttlMs > 0 && this.feed.connected;
  }

  generation(tenantId: string): number {
    return this.generations.get(tenantId) ?? 0;
  }

  get(tenantId: string, key: string): string | undefined {
    if (!this.enabled) return undefined;
    const hit = this.answers.get(`${tenantId}\u0000${key}`);
    return hit && hit.generation === this.generation(tenantId) ? hit.text : undefined;
  }

  set(tenantId: string, key: string, generation: number, text: string): void {
    if (this.enabled && generation === this.generation(tenantId)) this.answers.set(`${tenantId}\u0000${key}`, { generation, text }, Date.now() + this.ttlMs);
  }

  invalidate(tenantId: string): void {
    this.generations.set(tenantId, this.generation(tenantId) + 1);
  }

  start(): void {
    this.stops.push(
      this.feed.subscribe(NOTIFICATION_TOPIC, (e) => this.invalidate(e.tenantId)),
      this.feed.onResync(() => {
        for (const tenantId of this.generations.keys()) this.invalidate(tenantId);
        this.answers.clear();
      }),
    );
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
  }
}

/** The cache key of a caller's page: who it is as far as visibility goes, and the page. */
export function listKey(v: Visibility, start: number, limit: number): string {
  const who = v.all ? '*' : `${v.user}\u0001${[...v.roles].sort().join('\u0002')}\u0001${[...v.organisations].sort().join('\u0002')}`;
  return `${who}\u0001${start}\u0001${limit}`;
}
