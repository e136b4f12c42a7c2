import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Database } from '../../src/platform/db/database.js';
import { describeEachEngine, openTestDatabase } from '../helpers/test-app.js';

// The dialect's derived table from a JSON array parameter, which lets one statement answer many callers.
describeEachEngine('dialect jsonRecords and inList', (engine) => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
  });
  afterAll(async () => {
    await database.destroy();
  });

  it('turns a JSON array of objects into typed rows, with list columns tested by inList', async () => {
    const { db, dialect } = database;
    const records = JSON.stringify([
      { n: 0, name: "it's", tags: ['a', 'b'], at: 1795350000000 },
      { n: 1, name: 'ünïcode "quoted"', tags: [], at: 0 },
      { n: 2, name: null, tags: ['b'], at: -1 },
    ]);
    const table = dialect.jsonRecords(records, { n: 'integer', name: 'text', tags: 'list', at: 'bigint' });
    const { rows } = await sql<{ n: number; name: string | null; has_b: unknown; at: unknown }>`
      select r.n, r.name, case when ${dialect.inList(sql.lit('b'), sql.ref('r.tags'))} then 1 else 0 end as has_b, r.at
      from ${table} as r order by r.n`.execute(db);
    expect(rows.map((r) => ({ n: Number(r.n), name: r.name, hasB: Number(r.has_b), at: Number(r.at) }))).toEqual([
      { n: 0, name: "it's", hasB: 1, at: 1795350000000 },
      { n: 1, name: 'ünïcode "quoted"', hasB: 0, at: 0 },
      { n: 2, name: null, hasB: 1, at: -1 },
    ]);
  });

  it('answers no rows for an empty array, and refuses a column name that is not an identifier', async () => {
    const { db, dialect } = database;
    const { rows } = await sql`select * from ${dialect.jsonRecords('[]', { n: 'integer' })} as r`.execute(db);
    expect(rows).toEqual([]);
    expect(() => dialect.jsonRecords('[]', { 'n) --': 'integer' })).toThrow('not a column name');
  });
});
