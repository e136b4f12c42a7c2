import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompiledQuery, type Kysely } from 'kysely';
import { hasOffThreadWriter, recordWrites, writeOffThread } from '../../src/platform/db/write-off-thread.js';
import type { Database } from '../../src/platform/db/database.js';
import { openTestDatabase } from '../helpers/test-app.js';

// Write transactions handed over whole (the storage module's batches of creates) run on SQLite's writer thread, with a
// connection of its own to the same file (platform/db/sqlite-writer-thread.ts, write-off-thread.ts).
describe('SQLite writes on the writer thread (writeOffThread)', () => {
  let database: Database;
  const names = async () =>
    (await database.db
      .selectFrom('things' as any)
      .select(['id', 'name'])
      .orderBy('id')
      .execute()) as Array<{ id: number; name: string }>;
  const insert = (rows: Array<{ id: number; name: string }>) =>
    recordWrites(async (record: Kysely<any>) => void (await record.insertInto('things').values(rows).execute()));

  beforeEach(async () => {
    database = await openTestDatabase('sqlite');
    await database.db.schema
      .createTable('things')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .execute();
  });

  afterEach(async () => {
    await database?.destroy();
  });

  it('commits every statement of a write, visible on the main connection once it resolves', async () => {
    expect(hasOffThreadWriter(database.data)).toBe(true);
    const writes = [
      ...(await insert([{ id: 1, name: 'one' }])),
      ...(await insert([
        { id: 2, name: 'ünïcödé 🙂' },
        { id: 3, name: 'x'.repeat(70_000) },
      ])),
    ];
    expect(writes).toHaveLength(2);
    // Recorded only: nothing is written before writeOffThread.
    expect(await names()).toEqual([]);
    await writeOffThread(database.data, writes);
    expect((await names()).map((r) => r.name)).toEqual(['one', 'ünïcödé 🙂', 'x'.repeat(70_000)]);
  });

  it('writes nothing of a transaction whose statement fails, and rejects with the engine code', async () => {
    await writeOffThread(database.data, await insert([{ id: 1, name: 'one' }]));
    const failing = [...(await insert([{ id: 2, name: 'two' }])), ...(await insert([{ id: 1, name: 'again' }]))];
    await expect(writeOffThread(database.data, failing)).rejects.toMatchObject({
      code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
    });
    expect(await names()).toEqual([{ id: 1, name: 'one' }]);
    // The thread goes on with the next one.
    await writeOffThread(database.data, await insert([{ id: 2, name: 'two' }]));
    expect((await names()).map((r) => r.id)).toEqual([1, 2]);
  });

  it('holds the main connection until the commit: a transaction of the main thread started meanwhile waits, nothing is busy', async () => {
    const order: string[] = [];
    const offThread = writeOffThread(database.data, await insert([{ id: 10, name: 'thread' }])).then(() =>
      order.push('thread committed'),
    );
    const mainWrite = database.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('things' as any)
        .select((eb) => eb.fn.max('id').as('last'))
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('things' as any)
        .values({ id: 11, name: `main after ${row.last}` })
        .execute();
      order.push('main wrote');
    });
    await Promise.all([offThread, mainWrite]);
    expect(order).toEqual(['thread committed', 'main wrote']);
    expect((await names()).map((r) => r.name)).toEqual(['thread', 'main after 10']);
  });

  it("adds the key base, read in the thread's transaction, to the keyed parameters", async () => {
    await writeOffThread(database.data, await insert([{ id: 41, name: 'first' }]));
    const keyed = (rows: Array<{ id: number; name: string }>) =>
      insert(rows).then((writes) =>
        writes.map((write) => ({
          ...write,
          keyed: write.parameters.flatMap((v, at) => (typeof v === 'number' ? [at] : [])),
        })),
      );
    // Offsets 0 and 1 after the largest id: 42 and 43.
    await writeOffThread(
      database.data,
      await keyed([
        { id: 0, name: 'a' },
        { id: 1, name: 'b' },
      ]),
      'SELECT max(id) + 1 FROM things',
    );
    await writeOffThread(database.data, await keyed([{ id: 0, name: 'c' }]), 'SELECT max(id) + 1 FROM things');
    expect(await names()).toEqual([
      { id: 41, name: 'first' },
      { id: 42, name: 'a' },
      { id: 43, name: 'b' },
      { id: 44, name: 'c' },
    ]);
  });

  it('answers the first value of each statement that answers rows (RETURNING), in order', async () => {
    const writes = await recordWrites(async (record: Kysely<any>) => {
      await record.insertInto('things').values({ id: 7, name: 'seven' }).returning('name').execute();
      await record.insertInto('things').values({ id: 8, name: 'eight' }).execute();
      await record.insertInto('things').values({ id: 9, name: 'nine' }).returning('id').execute();
    });
    expect(await writeOffThread(database.data, writes)).toEqual(['seven', 9]);
    expect((await names()).map((r) => r.id)).toEqual([7, 8, 9]);
  });

  it('binds every kind of parameter as the main connection does (they travel packed)', async () => {
    const values: unknown[] = [
      null,
      0,
      -0,
      -1.5,
      2 ** 53 - 1,
      1e300,
      '',
      'a',
      'ünïcödé 🙂',
      'nul\u0000inside',
      '\ud800 lone',
      'y'.repeat(20_000),
      Buffer.from([0, 1, 255]),
      123n,
    ];
    const rowsOf = async (table: string) => {
      await database.db.executeQuery(CompiledQuery.raw(`CREATE TABLE ${table} (n INTEGER, v ANY)`));
      const writes = [];
      const sql = `INSERT INTO ${table} (n, v) VALUES (?, ?), (?, ?)`;
      for (let n = 0; n < values.length; n += 2) writes.push({ sql, parameters: [n, values[n], n + 1, values[n + 1]] });
      return writes;
    };
    const read = async (table: string) =>
      (await database.db.executeQuery(CompiledQuery.raw(`SELECT n, v, typeof(v) AS t FROM ${table} ORDER BY n`))).rows;
    await writeOffThread(database.data, await rowsOf('cells'));
    for (const write of await rowsOf('cells_main'))
      await database.db.executeQuery(CompiledQuery.raw(write.sql, write.parameters));
    const rows = await read('cells');
    expect(rows).toHaveLength(values.length);
    expect(rows).toEqual(await read('cells_main'));
  });

  it('goes on after a statement that fails to prepare, its text sent again', async () => {
    const good = await insert([{ id: 1, name: 'one' }]);
    const bad = { sql: 'INSERT INTO no_such_table (id) VALUES (?)', parameters: [1] };
    await expect(writeOffThread(database.data, [bad])).rejects.toThrow(/no such table/);
    await expect(writeOffThread(database.data, [bad])).rejects.toThrow(/no such table/);
    await writeOffThread(database.data, good);
    await writeOffThread(database.data, await insert([{ id: 2, name: 'two' }]));
    expect((await names()).map((r) => r.id)).toEqual([1, 2]);
  });

  it('is not there on PostgreSQL, nor with database.sqliteWriterThread false', async () => {
    const pg = await openTestDatabase('postgres');
    try {
      expect(hasOffThreadWriter(pg.data)).toBe(false);
    } finally {
      await pg.destroy();
    }
    const off = await openTestDatabase('sqlite', { sqliteWriterThread: false });
    try {
      expect(hasOffThreadWriter(off.data)).toBe(false);
    } finally {
      await off.destroy();
    }
  });
});
