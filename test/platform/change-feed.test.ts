// The change feed on a real database: delivery after commit only, ids per tenant in commit order without gaps,
// replay for resumption, payloads past NOTIFY's limit, and (PostgreSQL) two instances and a dropped listener.
import { afterEach, expect, inject, it } from 'vitest';
import type { Kysely } from 'kysely';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrations.js';
import {
  createChangeFeed,
  eventsMigrations,
  type ChangeFeed,
  type FeedEvent,
} from '../../src/platform/events/index.js';
import { describeEachEngine, openTestDatabase } from '../helpers/test-app.js';

const silent = { warn: () => undefined, info: () => undefined, debug: () => undefined, error: () => undefined } as any;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(5);
  }
}

describeEachEngine('change feed', (engine) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function feedOn(
    database: Database,
    options: { retentionHours?: number } = {},
  ): Promise<ChangeFeed & { dropConnection?(): void }> {
    const feed = createChangeFeed({
      db: database.db,
      connectDedicated: database.connectDedicated,
      schema: await database.dialect.currentSchema(database.db),
      retentionHours: options.retentionHours ?? 24,
      log: silent,
    });
    await feed.start();
    cleanups.push(() => feed.close());
    return feed;
  }

  async function setUp() {
    const database = await openTestDatabase(engine);
    cleanups.push(() => database.destroy());
    await migrateToLatest(database.db, database.dialect, eventsMigrations);
    await database.db.schema.createTable('things').addColumn('name', 'text').execute();
    return database;
  }

  const collect = (feed: ChangeFeed, topic: string) => {
    const got: FeedEvent[] = [];
    feed.subscribe(topic, (e) => got.push(e));
    return got;
  };

  it('delivers committed events in id order, per tenant from 1 without gaps; a rolled-back write publishes nothing', async () => {
    const database = await setUp();
    const feed = await feedOn(database);
    const got = collect(feed, 'thing');
    const write = (tenantId: string, name: string, fail = false) =>
      feed.transaction(database.db as Kysely<any>, async (trx, publish) => {
        await trx.insertInto('things').values({ name }).execute();
        await publish({ tenantId, topic: 'thing', payload: { name } });
        if (fail) throw new Error('rolled back on purpose');
      });
    await write('t1', 'a');
    await expect(write('t1', 'never', true)).rejects.toThrow('on purpose');
    await write('t1', 'b');
    await write('t2', 'c');
    await Promise.all(Array.from({ length: 20 }, (_, i) => write('t1', `p${i}`)));
    await until(() => got.length === 23);
    await sleep(50);
    expect(got.length).toBe(23);
    expect(got.some((e) => (e.payload as { name: string }).name === 'never')).toBe(false);
    const t1 = got.filter((e) => e.tenantId === 't1').map((e) => e.id);
    expect(t1).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));
    expect(got.filter((e) => e.tenantId === 't2').map((e) => e.id)).toEqual([1]);
    const names = (await database.db.selectFrom('things').select('name').execute()).map(
      (r: { name: string }) => r.name,
    );
    expect(names).not.toContain('never');
  });

  it('replays what came after an id, and says when the id is unknown or past the retention window', async () => {
    const database = await setUp();
    const feed = await feedOn(database);
    for (let i = 0; i < 5; i++)
      await feed.transaction(database.db as Kysely<any>, (_trx, publish) =>
        publish({ tenantId: 't', topic: i % 2 ? 'odd' : 'even', payload: { i } }),
      );
    const replay = await feed.replay('t', 'even', 1, 100);
    expect(replay).toMatchObject({ kind: 'events' });
    expect(replay.kind === 'events' && replay.events.map((e) => e.id)).toEqual([3, 5]);
    expect(await feed.replay('t', 'even', 5, 100)).toEqual({ kind: 'events', events: [] });
    expect((await feed.replay('t', 'even', 6, 100)).kind).toBe('unknown');
    expect((await feed.replay('nobody', 'even', 1, 100)).kind).toBe('unknown');
    await database.db.deleteFrom('change_events').where('id', '<=', 2).execute();
    expect((await feed.replay('t', 'even', 0, 100)).kind).toBe('expired');
    expect((await feed.replay('t', 'even', 2, 100)).kind).toBe('events');
  });

  it('purges events older than the retention window on start', async () => {
    const database = await setUp();
    await database.db
      .insertInto('change_events')
      .values({ tenant_id: 't', id: 1, topic: 'x', payload: '{}', created_on: Date.now() - 2 * 3_600_000 })
      .execute();
    await database.db
      .insertInto('change_events')
      .values({ tenant_id: 't', id: 2, topic: 'x', payload: '{}', created_on: Date.now() })
      .execute();
    await feedOn(database, { retentionHours: 1 });
    await until(() => false, 200).catch(() => undefined);
    const ids = (await database.db.selectFrom('change_events').select('id').execute()).map((r: { id: number }) =>
      Number(r.id),
    );
    expect(ids).toEqual([2]);
  });

  if (engine === 'postgres') {
    async function secondInstance(database: Database): Promise<Database> {
      // Another instance: its own pool on the same database and schema.
      const schema = await database.dialect.currentSchema(database.db);
      const other = createDatabase({
        logError: () => {},
        url: inject('pgUrl'),
        dataDir: '',
        pgSchema: schema,
        poolSize: 2,
      });
      cleanups.push(() => other.db.destroy());
      return other;
    }

    it('an event published on one instance reaches the other; a payload past 8000 bytes arrives whole', async () => {
      const database = await setUp();
      const other = await secondInstance(database);
      const writer = await feedOn(database);
      const reader = await feedOn(other);
      const got = collect(reader, 'big');
      const text = `${'x'.repeat(50_000)}é`;
      await writer.transaction(database.db as Kysely<any>, (_trx, publish) =>
        publish({ tenantId: 't', topic: 'big', payload: { text } }),
      );
      await writer.transaction(database.db as Kysely<any>, (_trx, publish) =>
        publish({ tenantId: 't', topic: 'big', payload: { text: 'small' } }),
      );
      await until(() => got.length === 2);
      expect((got[0].payload as { text: string }).text).toBe(text);
      expect(got.map((e) => e.id)).toEqual([1, 2]);
    });

    it('a large event of a topic nobody hears on an instance is delivered there by id; a later subscriber gets its events whole', async () => {
      const database = await setUp();
      const other = await secondInstance(database);
      const writer = await feedOn(database);
      const reader = await feedOn(other);
      const text = 'y'.repeat(20_000);
      const publish = (topic: string, payload: unknown) =>
        writer.transaction(database.db as Kysely<any>, (_trx, p) => p({ tenantId: 't', topic, payload }));
      const unheard = await publish('quiet', { text });
      await reader.delivered(unheard, 5000);
      expect(reader.stats.delivered).toBe(1);
      const got = collect(reader, 'quiet');
      const heard = await publish('quiet', { text: `${text}z` });
      await until(() => got.length === 1);
      expect(got[0]).toMatchObject({ id: heard.id, topic: 'quiet', payload: { text: `${text}z` } });
      expect(got[0].createdOn).toBe(heard.createdOn);
      expect([unheard.id, heard.id]).toEqual([1, 2]);
    });

    it("a NOTIFY carries the payload up to its limit in bytes, a reference past it (the statement's own decision)", async () => {
      const database = await setUp();
      const writer = await feedOn(database);
      const listener = await database.connectDedicated!();
      cleanups.push(() => listener.end());
      const messages: string[] = [];
      listener.on('notification', (m) => messages.push(m.payload ?? ''));
      const { channel, maxPayloadBytes } = writer.notice({ tenantId: 't', topic: 'edge' }, Date.now())!;
      await listener.query(`LISTEN ${channel}`);
      // JSON strings of exactly the limit and one byte past it, in two-byte characters but one (bytes, not characters).
      const ofBytes = (bytes: number) => `${'é'.repeat((bytes - 3) / 2)}${(bytes - 3) % 2 ? 'a' : ''}a`;
      const at = ofBytes(maxPayloadBytes);
      const past = ofBytes(maxPayloadBytes + 1);
      expect([Buffer.byteLength(JSON.stringify(at)), Buffer.byteLength(JSON.stringify(past))]).toEqual([
        maxPayloadBytes,
        maxPayloadBytes + 1,
      ]);
      for (const payload of [at, past])
        await writer.transaction(database.db as Kysely<any>, (_trx, p) => p({ tenantId: 't', topic: 'edge', payload }));
      await until(() => messages.length === 2);
      const [inline, reference] = messages.map((m) => JSON.parse(m));
      expect(inline).toMatchObject({ t: 't', i: 1, o: 'edge', p: at });
      expect(Buffer.byteLength(messages[0]!)).toBeLessThanOrEqual(7_000);
      expect(reference).toMatchObject({ t: 't', i: 2, r: 'edge' });
      expect(reference).not.toHaveProperty('p');
    });

    it('deliveredEverywhere waits until every live instance has delivered an acknowledged event', async () => {
      const database = await setUp();
      const other = await secondInstance(database);
      const writer = await feedOn(database);
      const reader = await feedOn(other);
      writer.acknowledge('ending');
      reader.acknowledge('ending');
      const got: number[] = [];
      reader.subscribe('ending', (e) => got.push(e.id));
      // The reader is cut off for a while (it reconnects after its back-off): the writer must wait for it.
      reader.dropConnection!();
      await until(() => !reader.connected);
      const started = Date.now();
      const event = await writer.transaction(database.db as Kysely<any>, (_trx, p) =>
        p({ tenantId: 't', topic: 'ending', payload: {} }),
      );
      await writer.deliveredEverywhere(event, 10_000);
      expect(got).toContain(event.id);
      expect(Date.now() - started).toBeGreaterThan(100);
    });

    it('a dropped listener connection reconnects and delivers what committed meanwhile, once', async () => {
      const database = await setUp();
      const other = await secondInstance(database);
      const writer = await feedOn(database);
      const reader = await feedOn(other);
      const got = collect(reader, 'x');
      let resyncs = 0;
      reader.onResync(() => resyncs++);
      const publish = (i: number) =>
        writer.transaction(database.db as Kysely<any>, (_trx, p) => p({ tenantId: 't', topic: 'x', payload: { i } }));
      await publish(1);
      await until(() => got.length === 1);
      reader.dropConnection!();
      await until(() => !reader.connected);
      await publish(2);
      await publish(3);
      await until(() => reader.connected && got.length === 3, 10_000);
      await publish(4);
      await until(() => got.length === 4);
      await sleep(50);
      expect(got.map((e) => (e.payload as { i: number }).i)).toEqual([1, 2, 3, 4]);
      expect(resyncs).toBe(1);
    });
  }
});
