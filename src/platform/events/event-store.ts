import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { EventsTables } from './events.tables.js';
import type { EventNotice, FeedEvent, PublishedEvent, Replay } from './change-feed.js';

type Row = { tenant_id: string; id: number; topic: string; payload: string; created_on: number };

/**
 * The tenant's event counter one up (created at 1), answering the new id. `tenantId`: a bound value, or SQL of the
 * statement around it (announcedEvent inside PL/pgSQL).
 */
const nextId = (db: Kysely<EventsTables>, tenantId: string | RawBuilder<string>) =>
  db
    .insertInto('change_event_counters')
    .values({ tenant_id: tenantId, last_id: sql.lit(1) })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ last_id: sql<number>`change_event_counters.last_id + 1` }))
    .returning('last_id');

/** The values of announcedEvent: each a bound value, or SQL of the statement around it (a PL/pgSQL variable). */
export interface AnnouncedEventArgs {
  tenantId: string | RawBuilder<string>;
  topic: unknown;
  createdOn: unknown;
  /** The payload's JSON text, as the event row holds it. */
  payload: unknown;
  /** Undefined, or a channel that is null, where no NOTIFY goes out (this instance delivers its own events: LocalTransport). */
  notice?: { [K in keyof EventNotice]: unknown };
  /** Inside PL/pgSQL: the variables that take the id and the NOTIFY's void (`into`), as a list. */
  into?: RawBuilder<unknown>;
}

/**
 * PostgreSQL: one statement that takes the tenant's next event id, stores the event's row and queues its NOTIFY (sent
 * at commit), answering the id (`id`; `notified`, the NOTIFY's void). The one SQL of an announced event: run with
 * bound values (EventStore.insertAnnounced) and inside the functions of modules that make an event's payload from the
 * rows they write (storage-016, the creates of a store), where its values are the function's variables.
 */
export function announcedEvent(db: Kysely<EventsTables>, a: AnnouncedEventArgs): RawBuilder<{ id: number | string }> {
  const n = a.notice;
  const notify = n
    ? sql`(select pg_notify(${n.channel}, ${n.before} || c.last_id || case when octet_length(p.payload) <= ${n.maxPayloadBytes}
        then ${n.head} || p.payload || ${n.tail} else ${n.reference} end) where ${n.channel}::text is not null)`
    : sql`null`;
  return sql<{ id: number | string }>`with p as (select ${a.payload}::text as payload),
      c as (${nextId(db, a.tenantId)}),
      e as (insert into change_events (tenant_id, id, topic, payload, created_on)
        select ${a.tenantId}, c.last_id, ${a.topic}, p.payload, ${a.createdOn} from c, p)
    select c.last_id as id, ${notify}::text as notified ${a.into ? sql`into ${a.into}` : sql``} from c, p`;
}

/** SQL of the change feed: the per-tenant counter, the event rows, replay and the retention purge. */
export class EventStore {
  constructor(private readonly db: Kysely<EventsTables>) {}

  /**
   * Inserts the event inside the caller's transaction. The counter row's update locks it until commit, so ids of a
   * tenant commit in order and, rolled back together with their writes, leave no gaps. `payloadText`: the payload's
   * JSON text, made once by the caller for the event row and the NOTIFY (a batch of creates' payload is some 30 KB).
   */
  async insert(trx: Kysely<EventsTables>, event: PublishedEvent, now: number, payloadText: string): Promise<FeedEvent> {
    const { last_id: id } = await nextId(trx, event.tenantId).executeTakeFirstOrThrow();
    await trx
      .insertInto('change_events')
      .values({ tenant_id: event.tenantId, id: Number(id), topic: event.topic, payload: payloadText, created_on: now })
      .execute();
    return { ...event, id: Number(id), createdOn: now };
  }

  /**
   * As `insert`, and the event's NOTIFY queued in the same statement (PostgreSQL: data-modifying WITH), one round trip
   * where three were: the counter's row, the event row and the NOTIFY, all in the caller's transaction.
   */
  async insertAnnounced(
    trx: Kysely<EventsTables>,
    event: PublishedEvent,
    now: number,
    payloadText: string,
    notice: EventNotice,
  ): Promise<FeedEvent> {
    const { tenantId, topic } = event;
    const { rows } = await announcedEvent(trx, {
      tenantId,
      topic,
      createdOn: now,
      payload: payloadText,
      notice,
    }).execute(trx);
    return { ...event, id: Number(rows[0].id), createdOn: now };
  }

  /**
   * As `insert`, through statements recorded to run elsewhere (SQLite's writer thread, write-off-thread.ts), which
   * answer no rows: the event row takes its id from the counter row in SQL, and the counter's statement is the one
   * that answers rows there (RETURNING: the event's id, once run).
   */
  async recordInsert(record: Kysely<EventsTables>, event: PublishedEvent, now: number): Promise<void> {
    await nextId(record, event.tenantId).execute();
    await record
      .insertInto('change_events')
      .columns(['tenant_id', 'id', 'topic', 'payload', 'created_on'])
      .expression((eb) =>
        eb
          .selectFrom('change_event_counters')
          .select([
            'tenant_id',
            'last_id',
            eb.val(event.topic).as('topic'),
            eb.val(JSON.stringify(event.payload ?? null)).as('payload'),
            eb.val(now).as('created_on'),
          ])
          .where('tenant_id', '=', event.tenantId),
      )
      .execute();
  }

  /** The last id of every tenant that has one. */
  async counters(): Promise<Map<string, number>> {
    const rows = await this.db.selectFrom('change_event_counters').select(['tenant_id', 'last_id']).execute();
    return new Map(rows.map((r) => [r.tenant_id, Number(r.last_id)]));
  }

  async byId(tenantId: string, id: number): Promise<FeedEvent | undefined> {
    const row = await this.db
      .selectFrom('change_events')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toEvent(row) : undefined;
  }

  /** Events of the tenant with afterId < id < beforeId, in id order (every topic: the gap filler of delivery). */
  async between(tenantId: string, afterId: number, beforeId: number): Promise<FeedEvent[]> {
    const rows = await this.db
      .selectFrom('change_events')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '>', afterId)
      .where('id', '<', beforeId)
      .orderBy('id')
      .execute();
    return rows.map(toEvent);
  }

  /** Every event created at or after `since`, per tenant in id order (catch-up after a lost listener). */
  async createdSince(since: number): Promise<FeedEvent[]> {
    const rows = await this.db
      .selectFrom('change_events')
      .selectAll()
      .where('created_on', '>=', since)
      .orderBy('tenant_id')
      .orderBy('id')
      .execute();
    return rows.map(toEvent);
  }

  async replay(tenantId: string, topic: string, afterId: number, limit: number): Promise<Replay> {
    const counter = await this.db
      .selectFrom('change_event_counters')
      .select('last_id')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    const last = Number(counter?.last_id ?? 0);
    if (afterId > last) return { kind: 'unknown' };
    if (afterId === last) return { kind: 'events', events: [] };
    const oldest = await this.db
      .selectFrom('change_events')
      .select((eb) => eb.fn.min('id').as('min'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    const min = oldest?.min == null ? null : Number(oldest.min);
    if (min === null || min > afterId + 1) return { kind: 'expired' };
    const rows = await this.db
      .selectFrom('change_events')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '>', afterId)
      .where('topic', '=', topic)
      .orderBy('id')
      .limit(limit)
      .execute();
    return { kind: 'events', events: rows.map(toEvent) };
  }

  async heartbeat(instanceId: string, now: number): Promise<void> {
    await this.db
      .insertInto('feed_instances')
      .values({ instance_id: instanceId, seen_on: now })
      .onConflict((oc) => oc.column('instance_id').doUpdateSet({ seen_on: now }))
      .execute();
  }

  async leave(instanceId: string): Promise<void> {
    await this.db.deleteFrom('feed_acks').where('instance_id', '=', instanceId).execute();
    await this.db.deleteFrom('feed_instances').where('instance_id', '=', instanceId).execute();
  }

  async ack(instanceId: string, tenantId: string, id: number): Promise<void> {
    await this.db
      .insertInto('feed_acks')
      .values({ instance_id: instanceId, tenant_id: tenantId, last_id: id })
      .onConflict((oc) =>
        oc.columns(['instance_id', 'tenant_id']).doUpdateSet({
          last_id: sql<number>`case when feed_acks.last_id > ${id} then feed_acks.last_id else ${id} end`,
        }),
      )
      .execute();
  }

  /** How many instances alive since `aliveSince` have not yet delivered the tenant's event `id`. */
  async unacknowledged(tenantId: string, id: number, aliveSince: number): Promise<number> {
    const row = await this.db
      .selectFrom('feed_instances as i')
      .select(sql<number>`count(*)`.as('n'))
      .where('i.seen_on', '>=', aliveSince)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('feed_acks as a')
              .select('a.last_id')
              .whereRef('a.instance_id', '=', 'i.instance_id')
              .where('a.tenant_id', '=', tenantId)
              .where('a.last_id', '>=', id),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async purge(createdBefore: number): Promise<void> {
    await this.db.deleteFrom('change_events').where('created_on', '<', createdBefore).execute();
  }
}

function toEvent(row: Row): FeedEvent {
  return {
    tenantId: row.tenant_id,
    id: Number(row.id),
    topic: row.topic,
    payload: JSON.parse(row.payload),
    createdOn: Number(row.created_on),
  };
}
