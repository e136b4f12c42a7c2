// The change feed: events published with a write, delivered after commit on every instance, kept for resumption.
// Modules receive it as a dependency; the module list (src/module-list.ts) builds it and starts it before them.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { ChangeFeed } from './change-feed.js';
import { EventStore } from './event-store.js';
import type { EventsTables } from './events.tables.js';
import { Feed } from './feed.js';
import { LocalTransport } from './local-transport.js';
import { PostgresTransport } from './postgres-transport.js';

export type { ChangeFeed, EventNotice, FeedEvent, FeedStats, Publish, PublishedEvent, Replay } from './change-feed.js';
export type { EventsTables } from './events.tables.js';
export { eventsMigrations } from './events.migrations.js';
export { FeedCache } from './feed-cache.js';
export { announcedEvent, type AnnouncedEventArgs } from './event-store.js';

export interface ChangeFeedDeps {
  db: Kysely<EventsTables>;
  /** Set where several instances share the database (PostgreSQL): a dedicated connection for LISTEN. */
  connectDedicated?: () => Promise<pg.Client>;
  /**
   * Several instances share the database. Without `connectDedicated` (a transaction pooler and no direct URL) this
   * instance cannot listen: it delivers its own events (and, before each, what others committed since its last one)
   * and reports the listener as `off`, so that no cache trusts the feed.
   */
  shared?: boolean;
  /** Distinguishes deployments that share one PostgreSQL database in different schemas. */
  schema?: string;
  retentionHours: number;
  log: FastifyBaseLogger;
}

export function createChangeFeed(deps: ChangeFeedDeps): ChangeFeed & { dropConnection?(): void } {
  const transport = deps.connectDedicated
    ? new PostgresTransport({ connect: deps.connectDedicated, channel: channelName(deps.schema), log: deps.log })
    : new LocalTransport({ complete: !deps.shared });
  const feed = new Feed(
    deps.db,
    new EventStore(deps.db),
    transport,
    {
      retentionMs: deps.retentionHours * 3_600_000,
      purgeIntervalMs: 600_000,
      heartbeatMs: deps.connectDedicated ? 5_000 : 0,
    },
    deps.log,
  );
  if (transport instanceof PostgresTransport)
    return Object.assign(feed, { dropConnection: () => transport.dropConnection() });
  return feed;
}

/** A PostgreSQL identifier (at most 63 bytes) naming the schema's channel. */
function channelName(schema?: string): string {
  return `svc_events_${(schema ?? 'public').replace(/[^A-Za-z0-9_]/g, '_')}`.slice(0, 63);
}
