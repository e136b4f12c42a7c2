import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { ChangeFeed, FeedEvent } from '../../../platform/events/index.js';
import { finalEventFrame, type FinalStreamEvent } from '../../../platform/http/stream-end.js';
import { canSee, type Notification, type Visibility } from '../notification.js';
import type { NotificationEvent } from '../notifications.service.js';
import { NOTIFICATION_TOPIC } from '../notification-topic.js';
import type { Telemetry } from '../../../platform/metrics/index.js';

export interface StreamSettings {
  heartbeatMs: number;
  /** The reconnection delay the stream asks EventSource clients for. */
  retryMs: number;
  /** Bytes a connection may have waiting for its client; past that it is closed, and the client resumes. */
  maxQueuedBytes: number;
}

interface Subscriber {
  tenantId: string;
  visibility: Visibility;
  res: ServerResponse;
  /** Live events that arrive while the subscriber's missed events are read back; undefined once live. */
  pending?: FeedEvent[];
  lastId: number;
}

const REPLAY_PAGE = 500;

/**
 * Live delivery of notifications as Server-Sent Events: every connected caller gets the `notification` events it may
 * see, from the change feed (so a write on any instance reaches subscribers on all). Resumption by `Last-Event-ID`
 * reads missed events back from the feed; heartbeats keep proxies from closing idle streams.
 */
export class NotificationStreams {
  private readonly byTenant = new Map<string, Set<Subscriber>>();
  private heartbeat?: NodeJS.Timeout;
  private stopFeed?: () => void;

  constructor(
    private readonly feed: ChangeFeed,
    private readonly settings: StreamSettings,
    private readonly log: FastifyBaseLogger,
    private readonly telemetry?: Telemetry,
  ) {}

  start(): void {
    this.stopFeed = this.feed.subscribe(NOTIFICATION_TOPIC, (event) => this.dispatch(event));
    this.heartbeat = setInterval(() => {
      for (const set of this.byTenant.values())
        for (const sub of set) if (!sub.pending) this.write(sub, ': heartbeat\n\n');
    }, this.settings.heartbeatMs);
    this.heartbeat.unref();
  }

  close(): void {
    this.stopFeed?.();
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.endAll();
  }

  /**
   * Ends every stream (before the server closes, which would otherwise wait for them), with `event` as the last frame
   * when given (a shutdown: clients reconnect elsewhere). A subscriber still reading back missed events gets it too:
   * its Last-Event-ID names the last event it received, so it resumes from there.
   */
  endAll(event?: FinalStreamEvent): void {
    const frame = event ? finalEventFrame(event) : undefined;
    for (const set of this.byTenant.values())
      for (const sub of set) {
        if (frame) this.write(sub, frame);
        sub.res.end();
      }
    this.byTenant.clear();
  }

  /** Ends the tenant's streams (maintenance switched on); clients retry and get 503 until it is off. */
  endTenant(tenantId: string): void {
    for (const sub of this.byTenant.get(tenantId) ?? []) sub.res.end();
    this.byTenant.delete(tenantId);
  }

  get connections(): number {
    let n = 0;
    for (const set of this.byTenant.values()) n += set.size;
    return n;
  }

  /** Takes over the response: headers, the retry hint, then missed events (when resuming) and live ones. */
  async open(
    res: ServerResponse,
    tenantId: string,
    visibility: Visibility,
    lastEventId: string | undefined,
  ): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: ${this.settings.retryMs}\n\n`);
    const sub: Subscriber = { tenantId, visibility, res, pending: [], lastId: 0 };
    let set = this.byTenant.get(tenantId);
    if (!set) this.byTenant.set(tenantId, (set = new Set()));
    set.add(sub);
    const closed = this.telemetry?.streamOpened('notifications');
    res.on('close', () => {
      closed?.();
      const s = this.byTenant.get(tenantId);
      s?.delete(sub);
      if (s?.size === 0) this.byTenant.delete(tenantId);
    });
    try {
      if (lastEventId !== undefined) await this.resume(sub, lastEventId.trim());
    } catch (err) {
      this.log.warn({ err }, 'notification stream: resuming failed');
      this.reset(sub, 'unavailable', 'Missed events could not be read; the stream starts from now');
    }
    const pending = sub.pending ?? [];
    sub.pending = undefined;
    for (const event of pending) if (event.id > sub.lastId) this.send(sub, event);
  }

  private async resume(sub: Subscriber, raw: string): Promise<void> {
    if (!/^\d{1,15}$/.test(raw))
      return this.reset(sub, 'invalid', 'Last-Event-ID is not an event id of this stream; the stream starts from now');
    let after = Number(raw);
    for (;;) {
      const replay = await this.feed.replay(sub.tenantId, NOTIFICATION_TOPIC, after, REPLAY_PAGE);
      if (replay.kind === 'expired')
        return this.reset(
          sub,
          'expired',
          'Events after Last-Event-ID are older than the retention window; the stream starts from now',
        );
      if (replay.kind === 'unknown')
        return this.reset(sub, 'unknown', 'Last-Event-ID names no event of this stream; the stream starts from now');
      for (const event of replay.events) {
        this.send(sub, event);
        after = event.id;
      }
      sub.lastId = after;
      if (replay.events.length < REPLAY_PAGE || sub.res.destroyed) return;
    }
  }

  private reset(sub: Subscriber, reason: string, message: string): void {
    this.write(sub, `event: reset\ndata: ${JSON.stringify({ reason, message })}\n\n`);
  }

  private dispatch(event: FeedEvent): void {
    const set = this.byTenant.get(event.tenantId);
    if (!set) return;
    const frames = new Map<string, string>();
    for (const sub of set) {
      if (sub.pending) {
        sub.pending.push(event);
        continue;
      }
      this.send(sub, event, frames);
    }
  }

  /** Writes the event in the form this subscriber may see, if any. `frames` shares the text between subscribers. */
  private send(sub: Subscriber, event: FeedEvent, frames = new Map<string, string>()): void {
    const { action, notification, previous } = event.payload as NotificationEvent;
    let shown: { action: string; notification: Notification; key: string } | undefined;
    if (canSee(sub.visibility, notification)) shown = { action, notification, key: 'now' };
    // An update that takes the caller off the recipients reads, for that caller, as a delete of what it saw.
    else if (previous && canSee(sub.visibility, previous))
      shown = { action: 'delete', notification: previous, key: 'before' };
    if (!shown) return;
    let frame = frames.get(shown.key);
    if (!frame) {
      frame = `id: ${event.id}\nevent: notification\ndata: ${JSON.stringify({ action: shown.action, notification: shown.notification })}\n\n`;
      frames.set(shown.key, frame);
    }
    sub.lastId = event.id;
    this.write(sub, frame);
  }

  private write(sub: Subscriber, text: string): void {
    const { res } = sub;
    if (res.destroyed || res.writableEnded) return;
    if (res.writableLength > this.settings.maxQueuedBytes) {
      // A slow reader must not hold the others up or grow memory: it is cut off and resumes by Last-Event-ID.
      this.log.debug('notification stream: subscriber too slow, connection closed');
      res.destroy();
      return;
    }
    res.write(text);
  }
}
