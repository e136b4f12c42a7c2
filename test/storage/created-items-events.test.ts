// The feed events of batched creates as they are stored and sent: one per store of a batch, naming exactly the items
// inserted, each change the item as a read answers it. On PostgreSQL a batch of one store is one call of
// storage_create_items (dialects/postgres.ts), which makes the event's payload from the rows it inserted and sends its
// NOTIFY: the payload itself where it fits, a reference past the limit.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { apiKeyCaller, client, OWNER_KEY, STORAGE_CONFIG } from './storage-kit.js';
import { createItemsFunction } from '../../src/modules/storage/dialects/postgres.js';
import { PostgresTransport } from '../../src/platform/events/postgres-transport.js';

/** What the service's transport makes of an event's NOTIFY (its limit), without connecting. */
const notices = new PostgresTransport({
  connect: () => Promise.reject(new Error('unused')),
  channel: 'c',
  log: {} as never,
});

interface StoredChange {
  action: string;
  itemId: string;
  item: Record<string, unknown>;
  readers: string[];
}

describeEachEngine('feed events of batched creates', (engine) => {
  let t: TestApp;
  const owner = () => client(t, apiKeyCaller('owner', OWNER_KEY));
  // Each optional field is there in some items and not in others: a change names the absent ones null, as a read does.
  const body = (i: number, pad = 0) => ({
    ...(i % 4 === 2 ? {} : { name: `n${i}` }),
    ...(i % 4 === 1 ? { moduleId: `m${i}`, moduleInstanceId: `mi${i}` } : {}),
    value: { i, text: 'é'.repeat(pad) },
    readRestriction: { roles: ['OWNER', `r${i % 3}`] },
    writeRestriction: { roles: ['OWNER'] },
  });

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
  });
  afterAll(() => t.close());

  /** The stored events of a store, in id order: id, payload text, and its changes. */
  const eventsOf = async (store: string) => {
    const { rows } = await sql<{ id: string | number; payload: string }>`select id, payload from change_events
      where topic = ${`storage:${store}`} order by id`.execute(t.database.db);
    return rows.map((row) => ({
      id: Number(row.id),
      text: row.payload,
      payload: JSON.parse(row.payload) as { storeId: string; changes: StoredChange[] },
    }));
  };

  /** Each change names its item as a read of it answers, with who may read it, and the payload is plain JSON. */
  const expectChangesAsRead = async (store: string, events: Awaited<ReturnType<typeof eventsOf>>) => {
    for (const event of events) {
      expect(event.text).toBe(JSON.stringify(event.payload));
      expect(event.payload.storeId).toBe(store);
      for (const change of event.payload.changes) {
        const read = await owner().read(store, change.itemId);
        // PostgreSQL makes the change's text from the document's (storage-019): the item's text is the read's own.
        if (engine === 'postgres') expect(event.text).toContain(`"item":${read.body},"readers":`);
        expect(change).toEqual({
          action: 'created',
          itemId: change.itemId,
          item: read.json(),
          readers: ['role:OWNER', `role:r${(read.json().value as { i: number }).i % 3}`],
        });
      }
    }
  };

  it('tells each store of a batch its own inserted items, once, as a read answers them', async () => {
    for (const store of ['ev-a', 'ev-b']) expect((await owner().create(store, body(-1))).statusCode).toBe(200);
    const before = { a: (await eventsOf('ev-a')).length, b: (await eventsOf('ev-b')).length };
    // Creates of both stores in one turn: one batch, one event per store.
    const created = await Promise.all(
      Array.from({ length: 24 }, (_, i) => owner().create(i % 2 ? 'ev-b' : 'ev-a', body(i))),
    );
    expect(created.map((res) => res.statusCode)).toEqual(Array(24).fill(200));
    const idsOf = (parity: number) => created.filter((_, i) => i % 2 === parity).map((res) => res.json().id);
    for (const [store, parity, known] of [
      ['ev-a', 0, before.a],
      ['ev-b', 1, before.b],
    ] as const) {
      const events = (await eventsOf(store)).slice(known);
      expect(events.length).toBeGreaterThan(0);
      expect(events.flatMap((e) => e.payload.changes.map((c) => c.itemId)).sort()).toEqual(idsOf(parity).sort());
      await expectChangesAsRead(store, events);
    }
  });

  if (engine === 'postgres') {
    it('is the function as this build makes it, and its text as the last migration that made it (storage-019)', async () => {
      const made = createItemsFunction(t.database.db);
      const body = made.slice(made.indexOf('$body$') + 6, made.lastIndexOf('$body$'));
      const { rows } = await sql<{ prosrc: string }>`select prosrc from pg_proc
        where proname = 'storage_create_items' and pronamespace = current_schema()::regnamespace`.execute(
        t.database.db,
      );
      expect(rows.map((row) => row.prosrc)).toEqual([body]);
      // A database migrated before keeps the function its migration made: a change of the text (of createItemsStatement
      // or announcedEvent) fails here until a new migration makes the function again and this file is rewritten
      // (`npx vitest run -u` on this test).
      await expect(made).toMatchFileSnapshot('./create-items-function.sql');
    });

    it('takes the whole change of a record of the build before storage-019 (`e`) as it is, for a rolling update', async () => {
      expect((await owner().create('ev-old', body(0))).statusCode).toBe(200);
      const [{ tenant_id: tenantId }] = (
        await sql<{ tenant_id: string }>`select tenant_id from storage_items where store_id = 'ev-old'`.execute(
          t.database.db,
        )
      ).rows;
      const change = '{"action":"created","itemId":"old-1","item":{"id":"old-1"},"readers":[]}';
      const record = { n: 0, t: tenantId, s: 'ev-old', k: 'old-1', d: '{"id":"old-1"}', c: 1, b: 'owner', x: 2 };
      const records = [{ ...record, g: [], r: null, v: [], w: [], e: change }];
      const { rows } = await sql<{ item_n: number }>`select item_n from storage_create_items(
        ${JSON.stringify(records)}::jsonb, ${tenantId}, 'storage:ev-old', 1, '{"head":[', ']}',
        null, null, null, null, null, null)`.execute(t.database.db);
      expect(rows).toEqual([{ item_n: 0 }]);
      const events = await sql<{ payload: string }>`select payload from change_events
        where topic = 'storage:ev-old' order by id`.execute(t.database.db);
      expect(events.rows.at(-1)?.payload).toBe(`{"head":[${change}]}`);
    });

    it('sends a small batch its payload in the NOTIFY, a large one a reference to its stored event', async () => {
      const listener = await t.database.connectDedicated!();
      try {
        const messages: Array<Record<string, unknown>> = [];
        listener.on('notification', (m) => messages.push(JSON.parse(m.payload ?? '')));
        const schema = await t.database.dialect.currentSchema(t.database.db);
        await listener.query(`LISTEN "svc_events_${schema}"`); // the channel of the schema (platform/events)
        expect((await owner().create('ev-notify', body(0))).statusCode).toBe(200);
        // Items of 1,000 two-byte characters each: a batch of them is past NOTIFY's 7,000 bytes.
        const large = await Promise.all(
          Array.from({ length: 12 }, (_, i) => owner().create('ev-notify', body(i, 1000))),
        );
        expect(large.map((res) => res.statusCode)).toEqual(Array(12).fill(200));
        const events = await eventsOf('ev-notify');
        const mine = () => messages.filter((m) => m.o === 'storage:ev-notify' || m.r === 'storage:ev-notify');
        const deadline = Date.now() + 10_000;
        while (mine().length < events.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        const sent = mine();
        expect(sent.map((m) => m.i)).toEqual(events.map((e) => e.id));
        sent.forEach((message, n) => {
          const event = events[n]!;
          const limit = notices.notice(
            { tenantId: message.t as string, topic: 'storage:ev-notify' },
            message.c as number,
          );
          if (Buffer.byteLength(event.text) <= limit.maxPayloadBytes) expect(message.p).toEqual(event.payload);
          else
            expect(message).toEqual({
              t: expect.any(String),
              i: event.id,
              r: 'storage:ev-notify',
              c: expect.any(Number),
            });
        });
        // The small create's payload went in its message; the batch of large ones went by reference.
        expect(sent[0]).toHaveProperty('p');
        expect(sent.some((m) => 'r' in m)).toBe(true);
        await expectChangesAsRead('ev-notify', events);
      } finally {
        await listener.end();
      }
    });
  }
});
