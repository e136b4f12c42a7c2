import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { FeedEvent, PublishedEvent } from './change-feed.js';
import type { EventNotice } from './change-feed.js';
import type { EventReference, FeedTransport } from './feed.js';

/** NOTIFY payloads must stay under 8000 bytes; bigger events travel as a reference and are read back. */
const MAX_INLINE_BYTES = 7000;

export interface PostgresTransportOptions {
  /** Opens a connection of its own (not from the pool): LISTEN holds it for the life of the instance. */
  connect(): Promise<pg.Client>;
  /** The channel, one per schema, so that databases shared by several deployments do not hear each other. */
  channel: string;
  log: FastifyBaseLogger;
  /** First and longest wait between reconnection attempts. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * Events across every instance on one PostgreSQL database: the writing transaction queues a NOTIFY, which the
 * server sends to every listener when (and only if) it commits; each instance LISTENs on one dedicated connection,
 * and reconnects with back-off when that drops, reading back what committed meanwhile.
 */
export class PostgresTransport implements FeedTransport {
  private client?: pg.Client;
  private closed = false;
  private live = false;
  private lostSince?: number;
  private backoff: number;
  private retryTimer?: NodeJS.Timeout;
  private receive?: (message: FeedEvent | EventReference) => void;
  private lost?: (since: number) => void;

  constructor(private readonly options: PostgresTransportOptions) {
    this.backoff = options.minBackoffMs ?? 250;
  }

  get connected(): boolean {
    return this.live;
  }

  /**
   * The event's message as the listeners parse it (`{"t","i","o","c","p"}`), around the id and the payload that the
   * inserting statement takes from the counter and stores (event-store.ts announcedEvent). Past MAX_INLINE_BYTES of
   * message, a reference that the listeners read back where they need it: it names its topic (`r`, not `o`: a build
   * before it reads any message with `o` as a whole event) and time, so an instance where nobody subscribes to the
   * topic need not read the event back (feed.ts `unheard`).
   */
  notice(event: Pick<PublishedEvent, 'tenantId' | 'topic'>, now: number): EventNotice {
    const before = `{"t":${JSON.stringify(event.tenantId)},"i":`;
    const topic = JSON.stringify(event.topic);
    const head = `,"o":${topic},"c":${now},"p":`;
    const tail = '}';
    // The id has at most 16 digits (a safe integer).
    const maxPayloadBytes = MAX_INLINE_BYTES - Buffer.byteLength(before) - 16 - Buffer.byteLength(head) - tail.length;
    return {
      channel: this.options.channel,
      before,
      head,
      tail,
      reference: `,"r":${topic},"c":${now}}`,
      maxPayloadBytes,
    };
  }

  committed(): void {}

  async start(receive: PostgresTransport['receive'] & {}, lost: (since: number) => void): Promise<void> {
    this.receive = receive;
    this.lost = lost;
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.live = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Test hook and operator's lever alike: drops the listener connection as a network failure would. */
  dropConnection(): void {
    (
      this.client as unknown as { connection?: { stream?: { destroy(): void } } } | undefined
    )?.connection?.stream?.destroy();
  }

  private async connect(): Promise<void> {
    const client = await this.options.connect();
    client.on('notification', (msg) => {
      if (msg.channel !== this.options.channel || !msg.payload) return;
      try {
        const m = JSON.parse(msg.payload);
        this.receive?.(
          m.o === undefined
            ? { tenantId: m.t, id: m.i, topic: m.r, createdOn: m.c }
            : { tenantId: m.t, id: m.i, topic: m.o, createdOn: m.c, payload: m.p },
        );
      } catch (err) {
        this.options.log.warn({ err }, 'change feed: unreadable notification ignored');
      }
    });
    const onLost = (err?: Error) => {
      if (this.client !== client) return;
      client.on('error', () => undefined);
      this.client = undefined;
      this.live = false;
      this.lostSince ??= Date.now();
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.closed) return;
      this.options.log.warn(
        { err: err?.message },
        `change feed: listener connection lost; reconnecting in ${this.backoff} ms`,
      );
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    try {
      await client.query(`LISTEN "${this.options.channel}"`);
    } catch (err) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
      throw err;
    }
    this.client = client;
    this.live = true;
    this.backoff = this.options.minBackoffMs ?? 250;
    if (this.lostSince !== undefined) {
      // A little before the loss: a transaction that committed just then may have missed us too.
      const since = this.lostSince - 5_000;
      this.lostSince = undefined;
      this.options.log.warn('change feed: listener connection restored');
      this.lost?.(since);
    }
  }

  private scheduleReconnect(): void {
    const wait = this.backoff;
    this.backoff = Math.min(this.backoff * 2, this.options.maxBackoffMs ?? 10_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.closed) return;
      this.connect().catch((err) => {
        this.options.log.warn(
          { err: (err as Error).message },
          `change feed: reconnect failed; next attempt in ${this.backoff} ms`,
        );
        this.scheduleReconnect();
      });
    }, wait);
    this.retryTimer.unref();
  }
}
