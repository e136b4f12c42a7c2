import type { Kysely, Transaction } from 'kysely';

/**
 * Deliveries on one instance. `listener`: `local` (one process owns the database), `connected` or `disconnected`
 * (PostgreSQL's LISTEN), `off` (instances share the database but this one cannot listen: a pooler without a direct
 * URL). Lag: from the event's creation (inside its writing transaction) to its delivery here, on this host's clock
 * against the writer's.
 */
export interface FeedStats {
  readonly listener: 'local' | 'connected' | 'disconnected' | 'off';
  /** Events delivered to this instance's subscribers. */
  readonly delivered: number;
  /** The sum of their lags, in seconds (rate of it over rate of `delivered`: the mean lag). */
  readonly lagSecondsTotal: number;
  /** The lag of the last one delivered, in seconds. */
  readonly lastLagSeconds: number;
}

/** What a writer publishes: a topic, the tenant whose data changed, and a JSON payload. */
export interface PublishedEvent {
  tenantId: string;
  topic: string;
  payload: unknown;
}

/** A committed event as subscribers receive it. `id` grows by one per event of the tenant, in commit order. */
export interface FeedEvent extends PublishedEvent {
  id: number;
  createdOn: number;
}

/**
 * A NOTIFY on `channel` of an event's message: `before`, the event's id (taken from the counter by the statement that
 * sends it), then `head`, the payload's JSON text and `tail` where the whole message stays within `maxBytes`, else
 * `reference` (a message that names the event, which its listeners read back). The statement decides which, on the
 * payload it stores (announcedEvent).
 */
export interface EventNotice {
  channel: string;
  before: string;
  head: string;
  tail: string;
  reference: string;
  /** The largest payload, in bytes, that goes in the message itself. */
  maxPayloadBytes: number;
}

/** Stores an event with the transaction's other writes; it is delivered once (and only if) the transaction commits. */
export type Publish = (event: PublishedEvent) => Promise<FeedEvent>;

/** What a subscriber that reconnects may read back: the events after its last one, or why it cannot. */
export type Replay =
  | { kind: 'events'; events: FeedEvent[] }
  /** Events after that id have been purged (older than the retention window). */
  | { kind: 'expired' }
  /** No event of the tenant ever had that id. */
  | { kind: 'unknown' };

/**
 * The platform's change feed: events published inside a write's transaction, delivered after commit to every
 * subscriber on every instance of the database (in-process on SQLite; LISTEN/NOTIFY on PostgreSQL), and kept for a
 * retention window so that a subscriber can ask for what it missed.
 */
export interface ChangeFeed {
  /** Runs `work` in one transaction; what it publishes is stored with its writes and sent only after commit. */
  transaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>, publish: Publish) => Promise<T>): Promise<T>;
  /**
   * As `transaction`, in a transaction that `run` holds (a write batcher's job: it may share a commit with other jobs,
   * and resolves only after that commit). What `work` publishes is sent once `run` resolves; nothing if it rejects.
   */
  within<Db, T>(
    run: (job: (trx: Db) => Promise<T>) => Promise<T>,
    work: (trx: Db, publish: Publish) => Promise<T>,
  ): Promise<T>;
  /**
   * For a write transaction whose statements are recorded and run elsewhere (SQLite's writer thread,
   * write-off-thread.ts): adds the event's statements through `record`; the one that answers rows answers the event's
   * id. Once that transaction has committed, `deliverRecorded` takes the events with their ids. Only where this
   * process owns the database (no NOTIFY is recorded).
   */
  recordPublish(record: Kysely<any>, event: PublishedEvent, now: number): Promise<void>;
  /**
   * For a statement that stores an event of its own making (PostgreSQL: a module's function that makes the payload
   * from the rows it writes, through event-store.ts announcedEvent): the NOTIFY it queues, or undefined where this
   * instance's transport sends none. Once that statement has committed, `deliverRecorded` takes the event.
   */
  notice(event: Pick<PublishedEvent, 'tenantId' | 'topic'>, now: number): EventNotice | undefined;
  /**
   * Delivers events that a transaction stored without `publish` (recordPublish, or a statement with `notice`), after
   * its commit, with the ids it answered.
   */
  deliverRecorded(events: FeedEvent[]): void;
  /** Calls `listener` with every committed event of the topic, per tenant in id order. Returns the unsubscribe. */
  subscribe(topic: string, listener: (event: FeedEvent) => void): () => void;
  /**
   * Calls `listener` when deliveries may have had a gap (the PostgreSQL listener connection dropped and came back):
   * holders of caches built on the feed drop them. Returns the unsubscribe.
   */
  onResync(listener: () => void): () => void;
  /** True while every committed event reaches this instance; caches built on the feed are only safe then. */
  readonly connected: boolean;
  /** How deliveries went so far on this instance, for metrics. */
  readonly stats: FeedStats;
  /**
   * Resolves once this instance has delivered the event (at most `timeoutMs` later). A writer that must not answer
   * before every instance knows (a logout) waits for its own instance: the server sends the event to all at once.
   */
  delivered(event: Pick<FeedEvent, 'tenantId' | 'id'>, timeoutMs: number): Promise<void>;
  /**
   * Makes every instance record when it has delivered an event of the topic, for `deliveredEverywhere`. For rare events
   * whose writer must not answer before all instances act on them (ending sessions); each costs a write per instance.
   */
  acknowledge(topic: string): void;
  /**
   * Resolves once every live instance (one that showed a sign of life recently) has delivered the event of an
   * acknowledged topic, or after `timeoutMs` (an instance that died meanwhile stops counting once its heartbeat is old).
   */
  deliveredEverywhere(event: Pick<FeedEvent, 'tenantId' | 'id'>, timeoutMs: number): Promise<void>;
  /** Events of the topic after `afterId`, oldest first, at most `limit`. */
  replay(tenantId: string, topic: string, afterId: number, limit: number): Promise<Replay>;
  start(): Promise<void>;
  close(): Promise<void>;
}
