// A list asked again while its store is unchanged answers the text it answered before (store-kept-lists.ts): one
// statement, the store's change count, and no item read. Any write makes it read the page again: one through this
// instance (which drops the store's kept answers, so the list after it reads no count first), one through another
// instance on the same database (whose count the database shows), and an item emptied by hand on PostgreSQL
// (TRUNCATE raises the counts: storage-015). Each caller, store and page keeps its own answer.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  apiKeyCaller,
  client,
  item,
  OWNER_KEY,
  recordStatements,
  STORAGE_CONFIG,
  STORE,
  secondInstance,
} from './storage-kit.js';

describeEachEngine('storage lists kept between changes', (engine) => {
  let t: TestApp;
  let owner: ReturnType<typeof client>;
  let other: ReturnType<typeof client>;
  const params = { filter: JSON.stringify([{ property: 'value.kind', operator: 'eq', value: 'a' }]), limit: '3' };

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
    other = client(t, apiKeyCaller('other', 'k-other-0123456789'));
    for (let i = 0; i < 5; i++) {
      const read = { roles: i % 2 === 0 ? ['OWNER'] : ['OWNER', 'roleB'] };
      const body = item({ n: i, kind: 'a' }, { readRestriction: read });
      expect((await owner.put('kept', `k${i}`, body)).statusCode).toBe(200);
    }
  });
  afterAll(() => t.close());

  const ids = (body: string) => (JSON.parse(body).items as Array<{ id: string }>).map((i) => i.id);

  /** The list's answer, and the statements it ran. */
  async function listed(c = owner, store = 'kept', p: Record<string, string | number> = params) {
    const recorder = recordStatements(t);
    try {
      const res = await c.list(store, p);
      expect(res.statusCode, res.body).toBe(200);
      return { body: res.body, tag: String(res.headers.etag), statements: recorder.texts };
    } finally {
      recorder.stop();
    }
  }
  /** A statement that reads the store's change count and nothing else. */
  const countOnly = (text: string) => text.includes('storage_store_changes') && !text.includes('storage_item');

  it('answers a list asked again from its kept text, reading the store change count only', async () => {
    const first = await listed();
    expect(first.statements.some((text) => text.includes('storage_item'))).toBe(true);
    const again = await listed();
    expect(again.statements).toHaveLength(1);
    expect(countOnly(again.statements[0]), again.statements[0]).toBe(true);
    expect([again.body, again.tag]).toEqual([first.body, first.tag]);
    // Conditional, from the same count: 304.
    const res = await t.request({
      method: 'GET',
      url: `${STORE}/kept?${new URLSearchParams(params)}`,
      headers: { 'x-apikey': OWNER_KEY, 'if-none-match': first.tag },
    });
    expect(res.statusCode).toBe(304);
  });

  it('keeps each caller, store and page its own answer', async () => {
    const mine = await listed();
    const theirs = await listed(other);
    expect(ids(mine.body)).toEqual(['k0', 'k1', 'k2']);
    expect(ids(theirs.body)).toEqual(['k1', 'k3']);
    expect((await listed(other)).body).toBe(theirs.body);
    expect(ids((await listed(owner, 'kept', { ...params, start: 3 })).body)).toEqual(['k3', 'k4']);
    expect(ids((await listed(owner, 'kept-elsewhere')).body)).toEqual([]);
    expect((await listed()).body).toBe(mine.body);
  });

  it('reads the page again after a write through this instance, without reading the count first', async () => {
    const before = await listed();
    expect((await owner.put('kept', 'k0', item({ n: 0, kind: 'b' }))).statusCode).toBe(200);
    const after = await listed();
    expect(ids(after.body)).toEqual(['k1', 'k2', 'k3']);
    expect(after.tag).not.toBe(before.tag);
    expect(after.statements.some(countOnly)).toBe(false);
    // Kept again from there.
    expect((await listed()).statements).toHaveLength(1);
  });

  it('reads the page again after a write through another instance on the same database', async () => {
    const second = await secondInstance(t);
    try {
      const before = await listed();
      expect((await listed()).statements).toHaveLength(1);
      const res = await second.app.inject({
        method: 'DELETE',
        url: `${STORE}/kept/k1`,
        headers: { 'x-apikey': OWNER_KEY },
      });
      expect(res.statusCode, res.body).toBe(200);
      const after = await listed();
      expect(ids(after.body)).toEqual(['k2', 'k3', 'k4']);
      expect(after.tag).not.toBe(before.tag);
    } finally {
      await second.close();
    }
  });

  it.runIf(engine === 'postgres')('reads the page again after the items are emptied by TRUNCATE', async () => {
    expect(ids((await listed()).body)).toEqual(['k2', 'k3', 'k4']);
    expect((await listed()).statements).toHaveLength(1);
    const tables = ['storage_items', 'storage_item_access', 'storage_item_values', 'storage_item_words'];
    await sql.raw(`TRUNCATE ${tables.join(', ')}`).execute(t.database.db);
    expect(JSON.parse((await listed()).body)).toEqual({ total: 0, items: [] });
  });
});
