import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { ChangeFeed, FeedEvent } from '../../../platform/events/index.js';
import type { Telemetry } from '../../../platform/metrics/index.js';
import { SseHub, type SseFinalEvent, type SseSettings, type SseSubscriber } from '../../../platform/http/sse-hub.js';
import { storeTopic, type StoreEventPayload } from '../store-events.js';

interface StoreSubscriber extends SseSubscriber {
  tenantId: string;
  storeId: string;
  grantees: ReadonlySet<string>;
}

/**
 * Live changes of stores as Server-Sent Events (`created`, `updated`, `deleted`), from the change feed, so a write on
 * any instance reaches the streams on all. Each change carries who may read the item after it and before it
 * (store-events.ts): a stream gets the item when its caller may read it after the change, `deleted` when it could
 * read it before and may not after, and nothing otherwise (so it never learns the id of an item it could never read).
 * That is decided once per distinct set of grantees (the hub's audience) per event, not per stream.
 */
export class StoreStreams {
  private readonly hub: SseHub<StoreSubscriber>;
  /** The feed subscription of each watched store id (any tenant), with the streams that hold it. */
  private readonly topics = new Map<string, { streams: number; stop: () => void }>();

  constructor(
    private readonly feed: ChangeFeed,
    settings: SseSettings,
    log: FastifyBaseLogger,
    telemetry?: Telemetry,
  ) {
    this.hub = new SseHub<StoreSubscriber>({
      name: 'store stream',
      metricName: 'store',
      telemetry,
      settings,
      log,
      render: (sub, event) => framesFor(sub.grantees, event),
      replay: (sub, afterId, limit) => this.feed.replay(sub.tenantId, storeTopic(sub.storeId), afterId, limit),
    });
  }

  start(): void {
    this.hub.start();
  }

  close(final?: SseFinalEvent): void {
    for (const { stop } of this.topics.values()) stop();
    this.topics.clear();
    this.hub.close(final);
  }

  /** Ends every store stream, each with `event` as its last frame when given (graceful drain, shutdown). */
  endAll(event?: SseFinalEvent): void {
    this.hub.endAll(event);
  }

  get connections(): number {
    return this.hub.connections;
  }

  /** Takes over the response: the stream of the store's changes the caller (its grantees) may see. */
  async open(
    res: ServerResponse,
    tenantId: string,
    storeId: string,
    grantees: readonly string[],
    lastEventId: string | undefined,
  ): Promise<void> {
    const sorted = [...new Set(grantees)].sort();
    const sub: StoreSubscriber = {
      group: groupOf(tenantId, storeId),
      res,
      tenantId,
      storeId,
      grantees: new Set(sorted),
      // The grantees as one unambiguous text (a name may hold any character): streams with the same see alike.
      audience: JSON.stringify(sorted),
    };
    this.watch(storeId);
    res.on('close', () => this.unwatch(storeId));
    await this.hub.open(sub, lastEventId);
  }

  private watch(storeId: string): void {
    const topic = this.topics.get(storeId);
    if (topic) {
      topic.streams++;
      return;
    }
    const stop = this.feed.subscribe(storeTopic(storeId), (event) =>
      this.hub.dispatch(groupOf(event.tenantId, storeId), event),
    );
    this.topics.set(storeId, { streams: 1, stop });
  }

  private unwatch(storeId: string): void {
    const topic = this.topics.get(storeId);
    if (!topic || --topic.streams > 0) return;
    topic.stop();
    this.topics.delete(storeId);
  }
}

const groupOf = (tenantId: string, storeId: string) => `${tenantId}\u0000${storeId}`;

const anyOf = (grantees: ReadonlySet<string>, list: readonly string[] | undefined) =>
  list?.some((g) => grantees.has(g)) === true;

/**
 * The frames of an event for a caller with these grantees, or undefined when it may see none of its changes. Only the
 * last frame carries the event's id: a client cut off within an event resumes before it, never past a change it missed.
 */
export function framesFor(grantees: ReadonlySet<string>, event: FeedEvent): string | undefined {
  const { storeId, changes } = event.payload as StoreEventPayload;
  const frames: string[] = [];
  for (const change of changes) {
    if (change.item && anyOf(grantees, change.readers))
      frames.push(
        `event: ${change.action}\ndata: ${JSON.stringify({ storeId, id: change.itemId, item: change.item })}\n`,
      );
    else if (anyOf(grantees, change.readersBefore))
      frames.push(`event: deleted\ndata: ${JSON.stringify({ storeId, id: change.itemId })}\n`);
  }
  if (frames.length === 0) return undefined;
  frames[frames.length - 1] = `id: ${event.id}\n${frames[frames.length - 1]}`;
  return `${frames.join('\n')}\n`;
}
