import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql, type CompiledQuery } from 'kysely';
import { rowsAsArrays } from '../../src/platform/db/prepared-query.js';
import { readOffThread } from '../../src/platform/db/read-off-thread.js';
import type { Database } from '../../src/platform/db/database.js';
import { openTestDatabase } from '../helpers/test-app.js';

// Long reads of SQLite (the lists) run on reader threads, each with a read-only connection of its own to the same
// file (platform/db/sqlite-reader-threads.ts), while the main thread keeps answering.
describe('SQLite reads on reader threads (readOffThread)', () => {
  let database: Database;
  const read = <R>(query: CompiledQuery<R>) => readOffThread(database.db, query).then((r) => r.rows);
  const things = (where = sql`1 = 1`) =>
    sql<{
      id: number;
      name: string | null;
      score: number | null;
      data: Buffer | null;
    }>`SELECT id, name, score, data FROM things WHERE ${where} ORDER BY id`.compile(database.db);

  beforeEach(async () => {
    database = await openTestDatabase('sqlite');
    await database.db.schema
      .createTable('things')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('name', 'text')
      .addColumn('score', 'real')
      .addColumn('data', 'blob')
      .execute();
  });

  afterEach(async () => {
    await database?.destroy();
  });

  it('answers the rows as the main connection does: objects, or arrays for rowsAsArrays, every kind of value', async () => {
    const names = ['plain', '', 'ünïcödé ✓ 🙂 日本', 'a\u0000b', null, 'x'.repeat(70_000), '"quoted", {braces}'];
    await database.db
      .insertInto('things' as any)
      .values(
        names.map((name, id) => ({
          id,
          name,
          score: id % 2 ? id / 3 : null,
          data: id === 3 ? Buffer.from([0, 1, 2, 255]) : null,
        })),
      )
      .execute();
    const onMain = await database.db.executeQuery(things());
    const onThread = await read(things());
    expect(onThread).toEqual(onMain.rows);
    expect(onThread.map((r) => r.name)).toEqual(names);
    expect(Buffer.from(onThread[3].data!)).toEqual(Buffer.from([0, 1, 2, 255]));
    const arrays = await read(
      rowsAsArrays<[number, string | null]>(
        sql<[number, string | null]>`SELECT id, name FROM things ORDER BY id`.compile(database.db),
      ),
    );
    expect(arrays).toEqual(names.map((name, id) => [id, name]));
    expect(await read(things(sql`id < 0`))).toEqual([]);
  });

  it('sees what was committed before it started, never a transaction still open on the main thread', async () => {
    await database.db
      .insertInto('things' as any)
      .values({ id: 1, name: 'one' })
      .execute();
    expect((await read(things())).map((r) => r.id)).toEqual([1]);
    await database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('things' as any)
        .values({ id: 2, name: 'two' })
        .execute();
      expect((await read(things())).map((r) => r.id)).toEqual([1]);
    });
    expect((await read(things())).map((r) => r.id)).toEqual([1, 2]);
  });

  it('answers every one of many concurrent reads with its own rows, through more statements than a thread keeps', async () => {
    await database.db
      .insertInto('things' as any)
      .values(Array.from({ length: 200 }, (_, id) => ({ id, name: `thing ${id}` })))
      .execute();
    // 1,200 distinct statements (a thread keeps 1,000 prepared), each asked three times, all at once.
    const ids = Array.from({ length: 3600 }, (_, n) => n % 1200);
    const statement = (id: number) =>
      sql<{
        id: number;
        name: string;
      }>`SELECT id, name FROM things WHERE id = ${id % 200} AND ${sql.lit(id)} >= 0`.compile(database.db);
    const results = await Promise.all(ids.map((id) => read(statement(id))));
    results.forEach((rows, n) => expect(rows).toEqual([{ id: ids[n] % 200, name: `thing ${ids[n] % 200}` }]));
  });

  it('fails only the read that fails, with the engine error, and refuses statements that write', async () => {
    const bad = read(sql`SELECT nope FROM things`.compile(database.db));
    const good = read(things());
    await expect(bad).rejects.toThrow(/no such column: nope/);
    expect(await good).toEqual([]);
    await expect(read(sql`INSERT INTO things (id) VALUES (1) RETURNING id`.compile(database.db))).rejects.toThrow();
    expect(await database.db.executeQuery(things())).toMatchObject({ rows: [] });
  });

  it('keeps the event loop free while a long read runs', async () => {
    // About a second of work for SQLite: a recursive count to 3,000,000.
    const long = read(
      sql<{
        n: number;
      }>`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000000) SELECT count(*) AS n FROM c`.compile(
        database.db,
      ),
    );
    const started = performance.now();
    const ticks: number[] = [];
    let last = started;
    let done = false;
    void long.finally(() => (done = true));
    while (!done) {
      await new Promise((r) => setTimeout(r, 5));
      const now = performance.now();
      ticks.push(now - last);
      last = now;
    }
    expect(await long).toEqual([{ n: 3_000_000 }]);
    // The timer kept firing while the read ran: many ticks, none held up for long (on the main connection the
    // whole read would have been one tick).
    expect(ticks.length).toBeGreaterThan(10);
    expect(Math.max(...ticks)).toBeLessThan((performance.now() - started) / 2);
  });

  it('refuses reads once the database is closed', async () => {
    await read(things());
    const { db } = database;
    await database.destroy();
    await expect(readOffThread(db, things())).rejects.toThrow(/closed/);
    database = undefined as unknown as Database;
  });
});
