import type { FeedEvent } from './change-feed.js';
import type { FeedTransport } from './feed.js';

/** One process owns the database (SQLite): committed events go straight to this process's subscribers. */
export class LocalTransport implements FeedTransport {
  private receive?: (message: FeedEvent) => void;
  readonly connected = true;

  async announce(): Promise<void> {}

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
