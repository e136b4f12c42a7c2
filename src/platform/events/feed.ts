import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import type { ChangeFeed, EventNotice, FeedEvent, FeedStats, Publish, PublishedEvent, Replay } from './change-feed.js';
import type { EventStore } from './event-store.js';
import type { EventsTables } from './events.tables.js';

/**
 * How events travel between the writers and the subscribers of the database: in-process where one process owns it,
 * PostgreSQL's LISTEN/NOTIFY where several instances share it.
 */
export interface FeedTransport {
  /**
   * PostgreSQL: the NOTIFY of an event that is yet to take its id, which the statement inserting the event sends in
   * the writing transaction (queued until commit; event-store.ts announcedEvent). Undefined where nothing is sent.
   */
  notice?(event: Pick<PublishedEvent, 'tenantId' | 'topic'>, now: number): EventNotice;
  /** After commit, with the transaction's events: the in-process transport delivers them here. */
  committed(events: FeedEvent[]): void;
  /** `receive` takes an event or a reference to one; `lost` is called when deliveries may have been missed. */
  start(receive: (message: FeedEvent | EventReference) => void, lost: (since: number) => void): Promise<void>;
  close(): Promise<void>;
  readonly connected: boolean;
  /** `local` and `off` for the in-process transport; PostgreSQL's follows its connection. */
  readonly listener?: 'local' | 'off';
}

/**
 * An event named but not carried (its payload is too large for a notification): read back from its row where a
 * subscriber of this instance needs it. `topic` and `createdOn` are absent in references from builds before them.
 */
export interface EventReference {
  tenantId: string;
  id: number;
  topic?: string;
  createdOn?: number;
}

export interface FeedSettings {
  retentionMs: number;
  /** How often the retention purge runs. */
  purgeIntervalMs: number;
  /** How often an instance that shares the database says it is alive (0: one process owns it; no heartbeat). */
  heartbeatMs: number;
}

export class Feed implements ChangeFeed {
  private readonly listeners = new Map<string, Set<(event: FeedEvent) => void>>();
  private readonly resyncListeners = new Set<() => void>();
  /** Per tenant, the id of the last event delivered here: later ones wait for the gap to be read back. */
  private readonly lastDelivered = new Map<string, number>();
  private chain: Promise<void> = Promise.resolve();
  private readonly waiters = new Set<{ tenantId: string; id: number; done: () => void }>();
  private purgeTimer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  private readonly acknowledged = new Set<string>();
  private readonly instanceId = randomUUID();
  private deliveredCount = 0;
  private lagSecondsTotal = 0;
  private lastLagSeconds = 0;

  constructor(
    readonly _db: Kysely<EventsTables>,
    private readonly store: EventStore,
    private readonly transport: FeedTransport,
    private readonly settings: FeedSettings,
    private readonly log: FastifyBaseLogger,
  ) {}

  get connected(): boolean {
    return this.transport.connected;
  }

  get stats(): FeedStats {
    const { transport } = this;
    return {
      listener: transport.listener ?? (transport.connected ? 'connected' : 'disconnected'),
      delivered: this.deliveredCount,
      lagSecondsTotal: this.lagSecondsTotal,
      lastLagSeconds: this.lastLagSeconds,
    };
  }

  transaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>, publish: Publish) => Promise<T>): Promise<T> {
    return this.within((job: (trx: Transaction<DB>) => Promise<T>) => db.transaction().execute(job), work);
  }

  async within<Db, T>(
    run: (job: (trx: Db) => Promise<T>) => Promise<T>,
    work: (trx: Db, publish: Publish) => Promise<T>,
  ): Promise<T> {
    const events: FeedEvent[] = [];
    const result = await run(async (trx) => {
      const own = trx as unknown as Kysely<EventsTables>;
      const publish: Publish = async (event) => {
        const now = Date.now();
        // The payload's text made once, for the event row and the NOTIFY (a batch of creates': some 30 KB).
        const payloadText = JSON.stringify(event.payload ?? null);
        const notice = this.notice(event, now);
        // One statement (counter, event row and NOTIFY) where a notice goes out: a round trip each was two more per write.
        const stored = notice
          ? await this.store.insertAnnounced(own, event, now, payloadText, notice)
          : await this.store.insert(own, event, now, payloadText);
        events.push(stored);
        return stored;
      };
      return work(trx, publish);
    });
    if (events.length > 0) this.transport.committed(events);
    return result;
  }

  async recordPublish(record: Kysely<any>, event: PublishedEvent, now: number): Promise<void> {
    if (this.transport.listener !== 'local')
      throw new Error('change feed: recorded events need the in-process transport (one process owns the database)');
    await this.store.recordInsert(record, event, now);
  }

  notice(event: Pick<PublishedEvent, 'tenantId' | 'topic'>, now: number): EventNotice | undefined {
    return this.transport.notice?.(event, now);
  }

  deliverRecorded(events: FeedEvent[]): void {
    if (events.length > 0) this.transport.committed(events);
  }

  subscribe(topic: string, listener: (event: FeedEvent) => void): () => void {
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  onResync(listener: () => void): () => void {
    this.resyncListeners.add(listener);
    return () => this.resyncListeners.delete(listener);
  }

  delivered(event: Pick<FeedEvent, 'tenantId' | 'id'>, timeoutMs: number): Promise<void> {
    if ((this.lastDelivered.get(event.tenantId) ?? 0) >= event.id) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        tenantId: event.tenantId,
        id: event.id,
        done: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.done, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  acknowledge(topic: string): void {
    this.acknowledged.add(topic);
  }

  async deliveredEverywhere(event: Pick<FeedEvent, 'tenantId' | 'id'>, timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    await this.delivered(event, timeoutMs);
    if (this.settings.heartbeatMs === 0) return;
    while (Date.now() < until) {
      const waiting = await this.store.unacknowledged(
        event.tenantId,
        event.id,
        Date.now() - 3 * this.settings.heartbeatMs,
      );
      if (waiting === 0) return;
      await new Promise((r) => setTimeout(r, 2));
    }
    this.log.warn(
      { tenantId: event.tenantId, id: event.id },
      'change feed: not every instance confirmed an event in time',
    );
  }

  replay(tenantId: string, topic: string, afterId: number, limit: number): Promise<Replay> {
    return this.store.replay(tenantId, topic, afterId, limit);
  }

  async start(): Promise<void> {
    for (const [tenantId, last] of await this.store.counters()) this.lastDelivered.set(tenantId, last);
    await this.transport.start(
      (message) => this.enqueue(() => this.receive(message)),
      (since) => this.enqueue(() => this.catchUp(since)),
    );
    const purge = () =>
      this.store
        .purge(Date.now() - this.settings.retentionMs)
        .catch((err) => this.log.warn({ err }, 'change feed purge failed'));
    void purge();
    this.purgeTimer = setInterval(purge, this.settings.purgeIntervalMs);
    this.purgeTimer.unref();
    if (this.settings.heartbeatMs > 0) {
      await this.store.heartbeat(this.instanceId, Date.now());
      this.heartbeatTimer = setInterval(
        () =>
          void this.store
            .heartbeat(this.instanceId, Date.now())
            .catch((err) => this.log.warn({ err }, 'change feed heartbeat failed')),
        this.settings.heartbeatMs,
      );
      this.heartbeatTimer.unref();
    }
  }

  async close(): Promise<void> {
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.purgeTimer = this.heartbeatTimer = undefined;
    if (this.settings.heartbeatMs > 0) await this.store.leave(this.instanceId).catch(() => undefined);
    await this.transport.close();
    await this.chain;
    for (const w of this.waiters) w.done();
  }

  /** Deliveries run one at a time, so a gap read back from the database is delivered before what follows it. */
  private enqueue(step: () => Promise<void>): void {
    this.chain = this.chain.then(step).catch((err) => this.log.warn({ err }, 'change feed delivery failed'));
  }

  private async receive(message: FeedEvent | EventReference): Promise<void> {
    const last = this.lastDelivered.get(message.tenantId) ?? 0;
    if (message.id <= last) return;
    if (message.id > last + 1)
      for (const missed of await this.store.between(message.tenantId, last, message.id)) this.deliver(missed);
    const event = isEvent(message)
      ? message
      : (this.unheard(message) ?? (await this.store.byId(message.tenantId, message.id)));
    if (event) this.deliver(event);
  }

  /**
   * A reference to an event of a topic nobody subscribes to here, as an event without its payload: its id is
   * delivered (waiters, acknowledgements) without reading its row back (a batch of 50 creates: a 30 KB row, read and
   * parsed by every instance after every batch). Checked right before `deliver`, with no wait between, so a
   * subscriber that comes meanwhile is not passed over. Undefined where the payload is needed or the topic unknown.
   */
  private unheard(reference: EventReference): FeedEvent | undefined {
    const { tenantId, id, topic, createdOn } = reference;
    if (topic === undefined || createdOn === undefined || (this.listeners.get(topic)?.size ?? 0) > 0) return undefined;
    return { tenantId, id, topic, createdOn, payload: undefined };
  }

  /** After a lost connection: whatever committed meanwhile, read back; then caches built on the feed start over. */
  private async catchUp(since: number): Promise<void> {
    for (const event of await this.store.createdSince(since)) await this.receive(event);
    for (const listener of this.resyncListeners) listener();
  }

  private deliver(event: FeedEvent): void {
    const last = this.lastDelivered.get(event.tenantId) ?? 0;
    if (event.id <= last) return;
    this.lastDelivered.set(event.tenantId, event.id);
    const lag = Math.max(0, Date.now() - event.createdOn) / 1000;
    this.deliveredCount++;
    this.lagSecondsTotal += lag;
    this.lastLagSeconds = lag;
    const set = this.listeners.get(event.topic);
    for (const listener of set ?? []) {
      try {
        listener(event);
      } catch (err) {
        this.log.warn({ err, topic: event.topic }, 'change feed subscriber failed');
      }
    }
    // After the subscribers acted on it: the local waiters, then (acknowledged topics) the other instances' waiters.
    for (const w of this.waiters) if (w.tenantId === event.tenantId && w.id <= event.id) w.done();
    if (this.settings.heartbeatMs > 0 && this.acknowledged.has(event.topic)) {
      void this.store
        .ack(this.instanceId, event.tenantId, event.id)
        .catch((err) => this.log.warn({ err }, 'change feed acknowledgement failed'));
    }
  }
}

/** A whole event, not a reference to one (references have no payload, and may lack topic and time). */
function isEvent(message: FeedEvent | EventReference): message is FeedEvent {
  return 'payload' in message;
}
