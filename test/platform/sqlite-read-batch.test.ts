import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { PreparedQueries, prepareQuery } from '../../src/platform/db/prepared-query.js';
import type { Database } from '../../src/platform/db/database.js';
import { openTestDatabase } from '../helpers/test-app.js';

// Prepared reads on SQLite run batched per turn of the event loop, in one read transaction, beside Kysely's
// own queries and transactions on the same connection (platform/db/sqlite-read-batch.ts).
describe('prepared reads on SQLite, batched per turn of the event loop', () => {
  let database: Database;
  let read: (id: number) => Promise<Array<{ id: number; name: string }>>;

  beforeEach(async () => {
    database = await openTestDatabase('sqlite');
    await database.db.schema
      .createTable('things')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('name', 'text')
      .execute();
    await database.db
      .insertInto('things')
      .values(Array.from({ length: 300 }, (_, i) => ({ id: i, name: `thing ${i}` })))
      .execute();
    read = prepareQuery(database.db, (p) =>
      database.db.selectFrom('things').select(['id', 'name']).where('id', '=', p(0)),
    );
  });

  afterEach(async () => {
    await database?.destroy();
  });

  it('answers every one of many concurrent reads with its own rows', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => (i * 7) % 300);
    const results = await Promise.all(ids.map((id) => read(id)));
    results.forEach((rows, n) => expect(rows).toEqual([{ id: ids[n], name: `thing ${ids[n]}` }]));
    expect(await read(1000)).toEqual([]);
  });

  it('fails only the read that fails, and leaves no transaction open behind the batch', async () => {
    const bad = read({ not: 'bindable' } as unknown as number);
    const good = [read(1), read(2), read(3)];
    await expect(bad).rejects.toThrow();
    expect(await Promise.all(good)).toEqual([1, 2, 3].map((id) => [{ id, name: `thing ${id}` }]));
    // A transaction left open by the batch would make this one fail ("cannot start a transaction within a transaction").
    await database.db
      .transaction()
      .execute((trx) => trx.insertInto('things').values({ id: 1000, name: 'new' }).execute());
    expect(await read(1000)).toEqual([{ id: 1000, name: 'new' }]);
  });

  it('never shows a read the rows of a transaction that has not committed', async () => {
    let seenInside: unknown;
    await expect(
      database.db.transaction().execute(async (trx) => {
        await trx.insertInto('things').values({ id: 2000, name: 'uncommitted' }).execute();
        const during = read(2000); // issued while the transaction holds the connection
        await new Promise((r) => setImmediate(r)); // the batch's turn comes while the transaction is open
        seenInside = during;
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await seenInside).toEqual([]);
    expect(await read(2000)).toEqual([]);
  });

  it('sees a write once it has committed', async () => {
    await sql`insert into things (id, name) values (${3000}, ${'committed'})`.execute(database.db);
    expect(await read(3000)).toEqual([{ id: 3000, name: 'committed' }]);
    await database.db.updateTable('things').set({ name: 'renamed' }).where('id', '=', 3000).execute();
    expect(await read(3000)).toEqual([{ id: 3000, name: 'renamed' }]);
  });

  it('runs a statement that already serves a batch at once, but never inside an open transaction', async () => {
    const statements = new PreparedQueries();
    const readNow = (id: number) =>
      statements.run<{ name: string }>(
        database.db,
        'now',
        (p) => database.db.selectFrom('things').select('name').where('id', '=', p(0)),
        [id],
        { batched: true },
      );
    expect(await readNow(5)).toEqual([{ name: 'thing 5' }]);
    let during: Promise<unknown> | undefined;
    await expect(
      database.db.transaction().execute(async (trx) => {
        await trx.insertInto('things').values({ id: 4000, name: 'uncommitted' }).execute();
        during = readNow(4000);
        await new Promise((r) => setImmediate(r));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await during).toEqual([]);
  });

  it('settles reads still waiting for their turn when the database is closed', async () => {
    const pending = read(1).then(
      () => 'settled',
      () => 'settled',
    );
    await database.destroy();
    const timeout = new Promise((r) => setTimeout(() => r('still pending'), 2000));
    expect(await Promise.race([pending, timeout])).toBe('settled');
    database = undefined as unknown as Database;
  });
});
