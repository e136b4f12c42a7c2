// Creates that arrive together are written together (store-item-creates.ts: one statement on PostgreSQL, one
// transaction of multi-row statements on SQLite); each must still store its own item, in its own tenant, with its own
// access rows, value index rows and words. In a store this instance has not written yet, the first create makes sure
// of the store's row once and the creates beside it wait for that (StorageService.knowStore).
import { createChangeFeed } from '../../src/platform/events/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { apiKeyCaller, client, OWNER_KEY, STORAGE_CONFIG } from './storage-kit.js';
import { StoreItemRepository } from '../../src/modules/storage/store-item.repository.js';
import { storageSqlFor } from '../../src/modules/storage/dialects/index.js';
import { WriteBatcher } from '../../src/platform/db/write-batcher.js';
import type { StorageTables } from '../../src/modules/storage/storage.tables.js';
import { sql, type Kysely } from 'kysely';
import { buildDocument } from '../../src/modules/storage/item-document.js';

describeEachEngine('storage creates arriving together', (engine) => {
  let t: TestApp;
  const acme = () => client(t, apiKeyCaller('owner', OWNER_KEY));
  const globex = () => client(t, apiKeyCaller('globex', 'k-globex-owner-0123'));

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
  });
  afterAll(() => t.close());

  /** Makes every insert into `table` fail (a trigger raising `refused`) until the answered function is called. */
  const refuseInserts = async (table: string): Promise<() => Promise<void>> => {
    const db = t.database.db;
    const name = sql.id(`refuse_${table}`);
    if (engine === 'sqlite')
      await sql`create trigger ${name} before insert on ${sql.id(table)} begin select raise(abort, 'refused'); end`.execute(
        db,
      );
    else {
      await sql`create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`.execute(
        db,
      );
      await sql`create trigger ${name} before insert on ${sql.id(table)} for each row execute function ${name}()`.execute(
        db,
      );
    }
    return async () => {
      await sql`drop trigger ${name}${engine === 'sqlite' ? sql`` : sql` on ${sql.id(table)}`}`.execute(db);
      if (engine === 'postgres') await sql`drop function ${name}()`.execute(db);
    };
  };

  it('stores every one of many concurrent creates with its own value, tenant and access rows', async () => {
    const body = (i: number) => ({
      value: { i, word: `w${i}x` },
      readRestriction: { roles: ['OWNER', `r-${i}`] },
      writeRestriction: { roles: ['OWNER'] },
    });
    // The stores exist before the burst, so the creates take the known-store path.
    expect((await acme().create('burst', body(-1))).statusCode).toBe(200);
    expect((await globex().create('burst', body(-2))).statusCode).toBe(200);

    const n = 40;
    const callerOf = (i: number) => (i % 2 ? globex() : acme());
    const created = await Promise.all(Array.from({ length: n }, (_, i) => callerOf(i).create('burst', body(i))));
    const ids = created.map((res, i) => {
      expect({ i, status: res.statusCode }).toEqual({ i, status: 200 });
      return res.json().id as string;
    });
    expect(new Set(ids).size).toBe(n);

    for (let i = 0; i < n; i++) {
      const own = await callerOf(i).read('burst', ids[i]!);
      expect(own.statusCode).toBe(200);
      expect(own.json()).toMatchObject({ id: ids[i], value: { i } });
      const other = await callerOf(i + 1).read('burst', ids[i]!); // the other tenant does not see it
      expect(other.statusCode).toBe(404);
      const rows = await t.database.db
        .selectFrom('storage_items as i')
        .innerJoin('storage_item_access as a', 'a.item_seq', 'i.seq')
        .select(['a.mode', 'a.grantee', 'a.tenant_id', 'i.tenant_id as item_tenant'])
        .where('i.item_id', '=', ids[i]!)
        .orderBy('a.mode')
        .orderBy('a.grantee')
        .execute();
      expect(rows.map((r) => `${r.mode} ${r.grantee}`)).toEqual(['r role:OWNER', `r role:r-${i}`, 'w role:OWNER']);
      expect(rows.every((r) => r.tenant_id === r.item_tenant)).toBe(true);
    }
    const list = await acme().list('burst', { limit: 100 });
    expect(list.json().total).toBe(n / 2 + 1);
    // Each item's own value rows and words: found by a filter on its value and by its word, and by nothing else.
    for (const i of [0, 7, 38]) {
      const byValue = await callerOf(i).list('burst', {
        filter: JSON.stringify([{ property: 'value.i', operator: 'eq', value: i }]),
      });
      expect(byValue.json().items.map((item: { id: string }) => item.id)).toEqual([ids[i]]);
      const byWord = await callerOf(i).list('burst', { query: `w${i}x` });
      expect(byWord.json().items.map((item: { id: string }) => item.id)).toEqual([ids[i]]);
    }
  });

  it('stores a burst of 100 creates once each, with exact kept totals and one feed entry each (PostgreSQL: two statements under way)', async () => {
    // More than one statement takes (64): on PostgreSQL the rest, 20 and more, go beside the first (store-item-creates.ts
    // STATEMENT_BATCH_LIMITS); on SQLite after it.
    const body = (i: number) => ({
      value: { i, kind: `k${i % 3}` },
      readRestriction: { roles: ['OWNER'] },
      writeRestriction: { roles: ['OWNER'] },
    });
    const first = await acme().create('wave', body(-1));
    expect(first.statusCode).toBe(200);
    const n = 100;
    const created = await Promise.all(Array.from({ length: n }, (_, i) => acme().create('wave', body(i))));
    expect(created.map((res) => res.statusCode)).toEqual(Array(n).fill(200));
    const ids = created.map((res) => res.json().id as string);
    expect(new Set(ids).size).toBe(n);
    // Totals of one value (kept counts) against the items themselves.
    for (const kind of ['k0', 'k1', 'k2']) {
      const list = await acme().list('wave', {
        filter: JSON.stringify([{ property: 'value.kind', operator: 'eq', value: kind }]),
        limit: 1000,
      });
      const expected = Array.from({ length: n }, (_, i) => i).filter((i) => `k${i % 3}` === kind).length;
      expect({ kind, total: list.json().total, items: list.json().items.length }).toEqual({
        kind,
        total: expected,
        items: expected,
      });
    }
    const db = t.database.db;
    const { tenant_id: tenantId } = await db
      .selectFrom('storage_items')
      .select('tenant_id')
      .where('item_id', '=', first.json().id)
      .executeTakeFirstOrThrow();
    // The tenant's events are numbered without a gap, and those of the store name every create once.
    const events = await sql<{ id: number | string; topic: string; payload: string }>`select id, topic, payload
      from change_events where tenant_id = ${tenantId} order by id`.execute(db);
    const numbers = events.rows.map((e) => Number(e.id));
    expect(numbers).toEqual(numbers.map((_, k) => numbers[0]! + k));
    const named = events.rows
      .filter((e) => e.topic === 'storage:wave')
      .flatMap((e) => (JSON.parse(e.payload) as { changes: Array<{ itemId: string }> }).changes.map((c) => c.itemId));
    expect(named.sort()).toEqual([first.json().id, ...ids].sort());
  });

  it('stores large items created together (more than one statement holds) whole', async () => {
    const big = (i: number) => ({
      value: { i, text: String(i).repeat(1_500_000) },
      readRestriction: { roles: ['OWNER'] },
      writeRestriction: { roles: ['OWNER'] },
    });
    expect(
      (
        await acme().create('big', {
          value: 0,
          readRestriction: { roles: ['OWNER'] },
          writeRestriction: { roles: ['OWNER'] },
        })
      ).statusCode,
    ).toBe(200);
    const created = await Promise.all([1, 2, 3, 4].map((i) => acme().create('big', big(i))));
    for (const [n, res] of created.entries()) {
      expect(res.statusCode).toBe(200);
      const read = await acme().read('big', res.json().id);
      expect(read.statusCode).toBe(200);
      expect(read.json().value).toEqual({ i: n + 1, text: String(n + 1).repeat(1_500_000) });
    }
  });

  it('skips an id that exists already in a batch and stores the others of it whole (SQLite: again on the main connection)', async () => {
    const body = (i: number) => ({
      value: { i, word: `dup${i}x` },
      readRestriction: { roles: ['OWNER'] },
      writeRestriction: { roles: ['OWNER'] },
    });
    const first = await acme().create('dup', body(0));
    const taken = first.json().id as string;
    const tenantId = (
      await t.database.db
        .selectFrom('storage_items')
        .select('tenant_id')
        .where('item_id', '=', taken)
        .executeTakeFirstOrThrow()
    ).tenant_id;
    // The repository as the module builds it, on the app's database: creates of one turn go in one batch.
    const { dialect } = t.database;
    const db = t.database.db as Kysely<StorageTables>;
    const writes = new WriteBatcher(db, engine === 'sqlite' ? 64 : 1);
    // A feed that is not started: the creates' events are stored, and told to no one.
    const feed = createChangeFeed({ db: t.database.db, retentionHours: 1, log: t.app.log });
    const repo = new StoreItemRepository(
      { ...t.database.data, db },
      dialect,
      storageSqlFor(dialect),
      (job) => writes.run(job),
      feed,
    );
    const fresh = ['dup-a', 'dup-b'];
    const keyOf = (itemId: string) => ({ tenantId, storeId: 'dup', itemId });
    const answers = await Promise.all([
      repo.insertBatched(keyOf(fresh[0]!), buildDocument(fresh[0]!, body(1) as any), Date.now(), 'test'),
      repo.insertBatched(keyOf(taken), buildDocument(taken, body(2) as any), Date.now(), 'test'),
      repo.insertBatched(keyOf(fresh[1]!), buildDocument(fresh[1]!, body(3) as any), Date.now(), 'test'),
    ]);
    expect(answers).toEqual([true, false, true]);
    expect((await acme().read('dup', taken)).json().value).toEqual({ i: 0, word: 'dup0x' });
    for (const [n, i] of [
      [0, 1],
      [1, 3],
    ] as const) {
      expect((await acme().read('dup', fresh[n]!)).json().value).toEqual({ i, word: `dup${i}x` });
      const byValue = await acme().list('dup', {
        filter: JSON.stringify([{ property: 'value.i', operator: 'eq', value: i }]),
      });
      expect(byValue.json().items.map((item: { id: string }) => item.id)).toEqual([fresh[n]]);
      const byWord = await acme().list('dup', { query: `dup${i}x` });
      expect(byWord.json().items.map((item: { id: string }) => item.id)).toEqual([fresh[n]]);
    }
    // The skipped create left no rows of its own: the taken id's item has its first document's rows only.
    const byOther = await acme().list('dup', {
      filter: JSON.stringify([{ property: 'value.i', operator: 'eq', value: 2 }]),
    });
    expect(byOther.json().total).toBe(0);
    expect((await acme().list('dup', {})).json().total).toBe(3);
  });
  it("stores creates of consecutive turns once each, keys in the feed events' order (PostgreSQL: within each)", async () => {
    const body = (i: number) => ({
      value: { i },
      readRestriction: { roles: ['OWNER'] },
      writeRestriction: { roles: ['OWNER'] },
    });
    const first = await acme().create('turns', body(-1));
    const db = t.database.db as Kysely<StorageTables>;
    const { tenant_id: tenantId } = await db
      .selectFrom('storage_items')
      .select('tenant_id')
      .where('item_id', '=', first.json().id)
      .executeTakeFirstOrThrow();
    // The repository as the module builds it (see the test above), its feed not started: the events are stored.
    const writes = new WriteBatcher(db, engine === 'sqlite' ? 64 : 1);
    const feed = createChangeFeed({ db: t.database.db, retentionHours: 1, log: t.app.log });
    const repo = new StoreItemRepository(
      { ...t.database.data, db },
      t.database.dialect,
      storageSqlFor(t.database.dialect),
      (job) => writes.run(job),
      feed,
    );
    const create = (itemId: string, i: number) =>
      repo.insertBatched(
        { tenantId, storeId: 'turns', itemId },
        buildDocument(itemId, body(i) as any),
        Date.now(),
        't',
      );
    const ids = (turn: number) => Array.from({ length: 12 }, (_, i) => `turn-${turn}-${i}`);
    // The first turn's creates go as one batch, the later turns' wait for it and go together (or, with more batches
    // under way at once, beside it). The last turn creates an id of the first again (never in the first's batch: an id
    // twice in one batch fails it, and its creates are then retried one by one, out of order), which is skipped.
    const answers: Promise<boolean>[] = [];
    for (let turn = 0; turn < 4; turn++) {
      answers.push(...ids(turn).map((id) => create(id, turn)));
      if (turn === 3) answers.push(create(ids(0)[0]!, 100));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const stored = await Promise.all(answers);
    expect(stored).toEqual([...Array(4 * 12).fill(true), false]);
    const all = [0, 1, 2, 3].flatMap(ids).sort();
    const rows = await db
      .selectFrom('storage_items')
      .select(['seq', 'item_id'])
      .where('store_id', '=', 'turns')
      .where('item_id', 'like', 'turn-%')
      .execute();
    expect(rows.map((r) => r.item_id).sort()).toEqual(all);
    const seqOf = new Map(rows.map((r) => [r.item_id, Number(r.seq)]));
    // The events in id order (commit order) name every stored item once, each event's items in key order. SQLite's
    // batches take their keys in the writer thread's transaction, one at a time, so keys also grow from event to
    // event. PostgreSQL's two batches under way at once (store-item-creates.ts) take keys from the sequence as they
    // insert, and the one that inserted second may commit first: there, keys follow commits only within a batch.
    const events = await sql<{ payload: string }>`select payload from change_events
      where tenant_id = ${tenantId} and topic = 'storage:turns' order by id`.execute(db);
    const batches = events.rows.map((e) =>
      (JSON.parse(e.payload) as { changes: Array<{ itemId: string }> }).changes
        .map((c) => c.itemId)
        .filter((id) => id.startsWith('turn-')),
    );
    const created = batches.flat();
    expect([...created].sort()).toEqual(all);
    const ascending = (keys: number[]) => expect(keys).toEqual([...keys].sort((a, b) => a - b));
    if (engine === 'sqlite') ascending(created.map((id) => seqOf.get(id)!));
    for (const batch of batches) ascending(batch.map((id) => seqOf.get(id)!));
    // Each item has its own document: the skipped creates' bodies are nowhere.
    const skipped = await acme().list('turns', {
      filter: JSON.stringify([{ property: 'value.i', operator: 'gt', value: 99 }]),
    });
    expect(skipped.json().total).toBe(0);
  });

  it("stores nothing of creates whose feed event cannot be stored: a batch's items and its event commit together", async () => {
    const body = (i: number) => ({
      value: { i },
      readRestriction: { roles: ['OWNER'] },
      writeRestriction: { roles: ['OWNER'] },
    });
    // The store is known before the burst, so the creates take the batched path (SQLite: the writer thread).
    expect((await acme().create('atomic', body(-1))).statusCode).toBe(200);
    const db = t.database.db;
    const items = async () =>
      Number(
        (await sql<{ n: number }>`select count(*) as n from storage_items where store_id = 'atomic'`.execute(db))
          .rows[0]!.n,
      );
    const allow = await refuseInserts('change_events');
    try {
      const created = await Promise.all(Array.from({ length: 8 }, (_, i) => acme().create('atomic', body(i))));
      expect(created.map((res) => res.statusCode === 200)).toEqual(Array(8).fill(false));
      expect(await items()).toBe(1);
    } finally {
      await allow();
    }
    const again = await Promise.all(Array.from({ length: 8 }, (_, i) => acme().create('atomic', body(i))));
    expect(again.map((res) => res.statusCode)).toEqual(Array(8).fill(200));
    expect(await items()).toBe(9);
  });

  /** The feed events of a store (topic `storage:<store>`) and the item ids they name. */
  const storeEvents = async (store: string) => {
    const events = await sql<{ payload: string }>`select payload from change_events
      where topic = ${`storage:${store}`} order by id`.execute(t.database.db);
    return {
      count: events.rows.length,
      ids: events.rows.flatMap((e) =>
        (JSON.parse(e.payload) as { changes: Array<{ itemId: string }> }).changes.map((c) => c.itemId),
      ),
    };
  };

  it('batches a burst of creates into a store this instance has not written: its row is made sure of once', async () => {
    // The caller's key is checked once before (another store), so the burst reaches the service together.
    expect(
      (
        await acme().create('elsewhere', {
          value: { i: -1 },
          readRestriction: { roles: ['OWNER'] },
          writeRestriction: { roles: ['OWNER'] },
        })
      ).statusCode,
    ).toBe(200);
    const n = 30;
    const created = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        acme().create('fresh', {
          value: { i, kind: `k${i % 2}` },
          readRestriction: { roles: ['OWNER'] },
          writeRestriction: { roles: ['OWNER'] },
        }),
      ),
    );
    expect(created.map((res) => res.statusCode)).toEqual(Array(n).fill(200));
    const ids = created.map((res) => res.json().id as string);
    expect(new Set(ids).size).toBe(n);
    const stores = await sql<{ n: number }>`select count(*) as n from storage_stores
      where store_id = 'fresh'`.execute(t.database.db);
    expect(Number(stores.rows[0]!.n)).toBe(1);
    // Every create once in the feed, in a few batches' events (each create in a transaction of its own gave one each).
    const events = await storeEvents('fresh');
    expect(events.ids.sort()).toEqual([...ids].sort());
    expect(events.count).toBeLessThanOrEqual(n / 3);
    const list = await acme().list('fresh', {
      filter: JSON.stringify([{ property: 'value.kind', operator: 'eq', value: 'k1' }]),
      limit: 100,
    });
    expect({ total: list.json().total, items: list.json().items.length }).toEqual({ total: n / 2, items: n / 2 });
  });

  it("fails the creates waiting on a new store's row when it cannot be made, and the next create makes it", async () => {
    const db = t.database.db;
    const allow = await refuseInserts('storage_stores');
    const body = (i: number) => ({
      value: { i },
      readRestriction: { roles: ['OWNER'] },
      writeRestriction: { roles: ['OWNER'] },
    });
    try {
      const refused = await Promise.all(Array.from({ length: 6 }, (_, i) => acme().create('unmade', body(i))));
      for (const res of refused) {
        expect(res.statusCode).toBe(500);
        expect(res.json()).toMatchObject({ error: { code: 500, messageKey: expect.any(String) } });
        expect(res.body).not.toContain('refused');
      }
    } finally {
      await allow();
    }
    const count = async () =>
      Number(
        (await sql<{ n: number }>`select count(*) as n from storage_items where store_id = 'unmade'`.execute(db))
          .rows[0]!.n,
      );
    expect(await count()).toBe(0);
    expect((await storeEvents('unmade')).count).toBe(0);
    const again = await Promise.all(Array.from({ length: 6 }, (_, i) => acme().create('unmade', body(i))));
    expect(again.map((res) => res.statusCode)).toEqual(Array(6).fill(200));
    expect(await count()).toBe(6);
  });
});
