import type { FeedEvent } from './change-feed.js';
import type { FeedTransport } from './feed.js';

/**
 * One process owns the database (SQLite): committed events go straight to this process's subscribers. Also where
 * instances share a PostgreSQL database but this one cannot LISTEN (a transaction pooler without a direct URL): then
 * it sees only its own events (gaps before them are read back by the feed) and is never `connected`.
 */
export class LocalTransport implements FeedTransport {
  private receive?: (message: FeedEvent) => void;
  readonly connected: boolean;
  readonly listener: 'local' | 'off';

  /** `complete`: this process writes every event of the database (true by default). */
  constructor(options: { complete?: boolean } = {}) {
    this.connected = options.complete !== false;
    this.listener = this.connected ? 'local' : 'off';
  }

  committed(events: FeedEvent[]): void {
    for (const event of events) this.receive?.(event);
  }

  async start(receive: (message: FeedEvent) => void): Promise<void> {
    this.receive = receive;
  }

  async close(): Promise<void> {
    this.receive = undefined;
  }
}
