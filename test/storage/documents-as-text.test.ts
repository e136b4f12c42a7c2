// An item's document is kept as the JSON text the service wrote (storage-014: PostgreSQL's column was jsonb): reads
// answer that text, the queries that read inside a document still do, and documents stored as jsonb before the
// migration read back as the same JSON values.
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrateToLatest } from '../../src/platform/db/migrations.js';
import { MIGRATIONS } from '../../src/module-list.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { item, listIds, ownerApp, STORE } from './storage-kit.js';

const STORAGE_014 = '2026-12-03-storage-014-documents-as-text';

/** Documents whose text jsonb writes otherwise: spacing, key order (jsonb sorts keys by length), escapes, numbers. */
const VALUES = [
  { zeta: 'last?', a: 1, nested: { longer_key: [1, 2.5, -3e-7, 1e21], k: null }, text: 'é "quoted" \\ \u0001 /' },
  { a: 2, tags: ['x', 'y'], text: 'plain' },
  { a: 3, text: 'unicode ☃ \ud83d\ude00' },
];

describeEachEngine('storage documents as text', (engine) => {
  const app = ownerApp(engine);
  const db = () => app.t.database.db as any;

  it('answers an item, a list and an export as the compact JSON text the service wrote', async () => {
    for (const [n, value] of VALUES.entries()) {
      const res = await app.owner.put('compact', `c${n}`, item(value, { name: `n${n}` }));
      expect(res.statusCode, res.body).toBe(200);
    }
    // Also a create of the batched path (PostgreSQL: the batch statement's records).
    expect((await app.owner.create('compact', item(VALUES[0]))).statusCode).toBe(200);
    const read = await app.owner.read('compact', 'c0');
    expect(read.json().value).toEqual(VALUES[0]);
    // jsonb's text had `": "` and its own key order: the answer is the text as written, byte for byte.
    expect(read.body).toBe(JSON.stringify(read.json()));
    const list = await app.owner.list('compact', { sort: 'value.a|ASC' });
    expect(list.json().items.map((i: { value: unknown }) => i.value)).toEqual([
      VALUES[0],
      VALUES[0],
      ...VALUES.slice(1),
    ]);
    expect(list.body).toBe(JSON.stringify(list.json()));
    const exported = await app.owner.send('GET', `${STORE}/compact/export?format=json`);
    expect(exported.body.trimEnd()).toBe(JSON.stringify(exported.json()));
  });

  it('reads values inside the document where SQL must: fields outside the index, items not indexed', async () => {
    for (const [n, value] of VALUES.entries())
      expect(
        (await app.owner.put('inside', `d${n}`, item(value, { readRestriction: { roles: ['OWNER', `r${n}`] } })))
          .statusCode,
      ).toBe(200);
    // readRestriction is not in the value index: its filter and sort read the document.
    const filter = JSON.stringify([{ property: 'readRestriction.roles', operator: 'eq', value: 'r1' }]);
    expect(await listIds(app.owner, 'inside', { filter })).toEqual({ total: 1, ids: ['d1'] });
    expect((await listIds(app.owner, 'inside', { sort: 'readRestriction.roles|DESC' })).ids).toHaveLength(3);
    // Items written before the value index (no rows, flag 0) are read from their documents by a filter, a sort and a
    // bare term (test/storage/value-index.test.ts compares many more shapes).
    await sql`delete from storage_item_values where vk in (select id from storage_value_keys where store_id = 'inside')`.execute(
      db(),
    );
    await sql`update storage_items set idx = 0, rs = null where store_id = 'inside'`.execute(db());
    const unindexed = JSON.stringify([{ property: 'value.text', operator: 'eq', value: VALUES[2].text }]);
    expect(await listIds(app.owner, 'inside', { filter: unindexed })).toEqual({ total: 1, ids: ['d2'] });
    expect((await listIds(app.owner, 'inside', { sort: 'value.a|DESC' })).ids).toEqual(['d2', 'd1', 'd0']);
    expect(await listIds(app.owner, 'inside', { query: 'unicode' })).toEqual({ total: 1, ids: ['d2'] });
  });

  it.runIf(engine === 'postgres')('converts documents stored as jsonb to text, answering the same JSON', async () => {
    for (const [n, value] of VALUES.entries())
      expect((await app.owner.put('old', `o${n}`, item(value, { moduleId: `m${n}` }))).statusCode).toBe(200);
    // The schema before storage-014, its documents in jsonb's form; then the migration again.
    await sql`alter table storage_items alter column doc type jsonb using doc::jsonb`.execute(db());
    await sql`delete from kysely_migration where name = ${STORAGE_014}`.execute(db());
    expect(await migrateToLatest(db(), app.t.database.dialect, MIGRATIONS)).toEqual([STORAGE_014]);
    const { rows } = await sql<{
      type: string;
      doc: string;
    }>`select pg_typeof(doc)::text as type, doc from storage_items
      where item_id = 'o0'`.execute(db());
    expect(rows[0].type).toBe('text');
    expect(rows[0].doc).toContain('": '); // jsonb's text form, kept until the item is written again
    for (const [n, value] of VALUES.entries()) {
      const read = await app.owner.read('old', `o${n}`);
      expect(read.json()).toMatchObject({ id: `o${n}`, moduleId: `m${n}`, moduleInstanceId: null, name: null, value });
    }
    const filter = JSON.stringify([{ property: 'value.a', operator: 'gte', value: 2 }]);
    const list = (await app.owner.list('old', { filter, sort: 'value.a|DESC' })).json();
    expect(list.items.map((i: { value: unknown }) => i.value)).toEqual([VALUES[2], VALUES[1]]);
    expect((await app.owner.put('old', 'o0', item(VALUES[0], { moduleId: 'm0' }))).statusCode).toBe(200);
    const again = await app.owner.read('old', 'o0');
    expect(again.body).toBe(JSON.stringify(again.json()));
  });
});
