// storage-020 and events-003 (PostgreSQL): an item's document and a feed event's payload, past the size the server
// compresses (about 2 KB), are compressed with LZ4 where the server has it (Dialect.fastCompression), and read back as
// they were written. SQLite stores them as they are.
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';
import { item, ownerApp } from './storage-kit.js';

describeEachEngine('large documents and events', (engine) => {
  const app = ownerApp(engine);
  const db = () => app.t.database.db as any;
  // 30 KB of text that compresses well, as large documents mostly do.
  const lines = Array.from({ length: 600 }, (_, i) => `line ${i % 40}: the same words again, and again`);

  it('reads a large document back as it was written, compressed with LZ4 on a server that has it', async () => {
    const created = await app.owner.create('big', item({ lines, n: 1 }));
    expect(created.statusCode, created.body).toBe(200);
    const { id } = created.json();
    const read = await app.owner.read('big', id);
    expect(read.statusCode).toBe(200);
    expect(read.json().value).toEqual({ lines, n: 1 });
    if (engine !== 'postgres') return;

    const lz4 = (
      await sql<{ lz4: boolean }>`select 'lz4' = any(enumvals) as lz4 from pg_settings
        where name = 'default_toast_compression'`.execute(db())
    ).rows[0].lz4;
    const doc = await sql<{ method: string | null }>`select pg_column_compression(doc) as method
      from storage_items where store_id = 'big' and item_id = ${id}`.execute(db());
    const event = await sql<{ method: string | null; payload: string }>`select pg_column_compression(payload) as method,
      payload from change_events where topic = 'storage:big' order by id desc limit 1`.execute(db());
    expect(doc.rows[0].method).toBe(lz4 ? 'lz4' : 'pglz');
    expect(event.rows[0].method).toBe(lz4 ? 'lz4' : 'pglz');
    expect(JSON.parse(event.rows[0].payload).changes[0].item.value).toEqual({ lines, n: 1 });
  });
});
