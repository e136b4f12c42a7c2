import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { ChangeFeed, FeedEvent } from '../../../platform/events/index.js';
import { SseHub, type SseFinalEvent, type SseSettings, type SseSubscriber } from '../../../platform/http/sse-hub.js';
import type { Telemetry } from '../../../platform/metrics/index.js';
import { canSee, type Notification, type Visibility } from '../notification.js';
import type { NotificationEvent } from '../notifications.service.js';
import { NOTIFICATION_TOPIC } from '../notification-topic.js';

export type StreamSettings = SseSettings;

interface Subscriber extends SseSubscriber {
  tenantId: string;
  visibility: Visibility;
}

/**
 * Live delivery of notifications as Server-Sent Events: every connected caller gets the `notification` events it may
 * see, from the change feed (so a write on any instance reaches subscribers on all). Resumption, heartbeats and the
 * cut of slow readers are the platform's SSE hub (platform/http/sse-hub.ts); what an event reads as is decided here.
 */
export class NotificationStreams {
  private readonly hub: SseHub<Subscriber>;
  private stopFeed?: () => void;

  constructor(
    private readonly feed: ChangeFeed,
    settings: StreamSettings,
    log: FastifyBaseLogger,
    telemetry?: Telemetry,
  ) {
    this.hub = new SseHub<Subscriber>({
      name: 'notification stream',
      metricName: 'notifications',
      telemetry,
      settings,
      log,
      render: (sub, event, shared) => render(sub, event, shared),
      replay: (sub, afterId, limit) => this.feed.replay(sub.tenantId, NOTIFICATION_TOPIC, afterId, limit),
    });
  }

  start(): void {
    this.stopFeed = this.feed.subscribe(NOTIFICATION_TOPIC, (event) => this.hub.dispatch(event.tenantId, event));
    this.hub.start();
  }

  close(): void {
    this.stopFeed?.();
    this.hub.close();
  }

  /** Ends every stream (before the server closes, which would otherwise wait for them), with `final` last if given. */
  endAll(final?: SseFinalEvent): void {
    this.hub.endAll(final);
  }

  /** Ends the tenant's streams (maintenance switched on); clients retry and get 503 until it is off. */
  endTenant(tenantId: string): void {
    this.hub.endGroup(tenantId);
  }

  get connections(): number {
    return this.hub.connections;
  }

  /** Takes over the response: headers, the retry hint, then missed events (when resuming) and live ones. */
  open(res: ServerResponse, tenantId: string, visibility: Visibility, lastEventId: string | undefined): Promise<void> {
    return this.hub.open({ group: tenantId, audience: audienceOf(visibility), res, tenantId, visibility }, lastEventId);
  }
}

/** Callers with the same visibility see every notification alike: the hub renders an event once for all of them. */
function audienceOf(v: Visibility): string {
  return v.all ? '*' : JSON.stringify([v.user, [...v.roles].sort(), [...v.organisations].sort()]);
}

/** The event in the form this subscriber may see, if any. `shared` shares the text between subscribers. */
function render(sub: Subscriber, event: FeedEvent, shared: Map<string, string | undefined>): string | undefined {
  const { action, notification, previous } = event.payload as NotificationEvent;
  let shown: { action: string; notification: Notification; key: string } | undefined;
  if (canSee(sub.visibility, notification)) shown = { action, notification, key: 'now' };
  // An update that takes the caller off the recipients reads, for that caller, as a delete of what it saw.
  else if (previous && canSee(sub.visibility, previous))
    shown = { action: 'delete', notification: previous, key: 'before' };
  if (!shown) return undefined;
  let frame = shared.get(shown.key);
  if (!frame) {
    frame = `id: ${event.id}\nevent: notification\ndata: ${JSON.stringify({ action: shown.action, notification: shown.notification })}\n\n`;
    shared.set(shown.key, frame);
  }
  return frame;
}
