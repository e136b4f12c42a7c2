// PostgreSQL's named prepared statements per pool connection, bounded (database.preparedStatementsPerConnection): past
// the bound the least recently used one is closed on the server (pg_prepared_statements shows it gone) before the new
// one is prepared, and an evicted statement run again is prepared again and answers. Behind PgBouncer in transaction
// mode without poolerPreparedStatements nothing is prepared by name.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { preparedOnServer } from '../../src/platform/db/prepared-query.js';
import { pgbouncerBinary, reportMissingPgBouncer, startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';
import { createProcessDatabase } from '../helpers/service-process.js';

const pgUrl = inject('pgUrl');

/** Statement `k` of a family of distinct texts: answers k * 10 + the parameter. */
const statement = (db: Kysely<any>, k: number, value: number) =>
  preparedOnServer(sql<{ n: number }>`SELECT ${sql.lit(k * 10)} + ${value}::int AS n`.compile(db));
const textOf = (k: number) => `SELECT ${k * 10} + $1::int AS n`;

async function run(db: Kysely<any>, k: number, value = 1): Promise<number> {
  return (await db.executeQuery(statement(db, k, value))).rows[0]!.n;
}

/** The texts of the statements of the family prepared on the connection, sorted. */
async function prepared(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(db);
  return rows
    .map((r) => r.statement)
    .filter((s) => / \+ \$1::int AS n$/.test(s))
    .sort();
}
const texts = (...ks: number[]) => ks.map(textOf).sort();

describe.skipIf(!pgUrl)('prepared statements per connection, least recently used evicted [postgres]', () => {
  let one: Database;
  beforeAll(() => {
    one = createDatabase({
      logError: () => {},
      url: pgUrl,
      dataDir: '',
      poolSize: 1,
      preparedStatementsPerConnection: 3,
    });
  });
  afterAll(() => one?.destroy());

  it('closes the least recently used statement on the server, and prepares an evicted one again when it recurs', async () => {
    const db = one.db;
    expect([await run(db, 1), await run(db, 2), await run(db, 3)]).toEqual([11, 21, 31]);
    expect(await prepared(db)).toEqual(texts(1, 2, 3));
    expect(await run(db, 4)).toBe(41);
    expect(await prepared(db)).toEqual(texts(2, 3, 4));
    // 2 is used again, so 3 is now the least recently used.
    expect(await run(db, 2, 5)).toBe(25);
    expect(await run(db, 5)).toBe(51);
    expect(await prepared(db)).toEqual(texts(2, 4, 5));
    // 1 was evicted: it runs again (prepared anew), in the place of 4.
    expect(await run(db, 1, 7)).toBe(17);
    expect(await prepared(db)).toEqual(texts(1, 2, 5));
    for (let round = 0; round < 3; round++)
      for (const k of [1, 2, 3, 4, 5, 6]) expect(await run(db, k, round)).toBe(k * 10 + round);
    expect(await prepared(db)).toEqual(texts(4, 5, 6));
    expect(one.load().statements!.evictions).toBeGreaterThan(0);
  });

  it('evicts inside transactions, also one that failed, and the connection stays consistent after it', async () => {
    const db = one.db;
    await db.transaction().execute(async (trx) => {
      for (const k of [7, 8, 9, 10]) expect(await run(trx, k)).toBe(k * 10 + 1);
    });
    expect(await prepared(db)).toEqual(texts(8, 9, 10));
    // A statement fails and the transaction is aborted; the next one (a new statement that evicts 8) fails too.
    await expect(
      db.transaction().execute(async (trx) => {
        await expect(sql`SELECT 1 / 0`.execute(trx)).rejects.toThrow(/division by zero/);
        await run(trx, 11);
      }),
    ).rejects.toThrow(/current transaction is aborted/);
    // Every statement of the family answers afterwards, and the server holds what the connection believes it holds.
    for (const k of [8, 9, 10, 11, 12, 8]) expect(await run(db, k, 2)).toBe(k * 10 + 2);
    expect(await prepared(db)).toEqual(texts(11, 12, 8));
  });

  it('frees the place of a statement whose preparation failed', async () => {
    const db = one.db;
    for (const k of [20, 21, 22]) await run(db, k);
    const bad = preparedOnServer(sql`SELECT no_such_column FROM pg_class`.compile(db));
    await expect(db.executeQuery(bad)).rejects.toThrow(/no_such_column/);
    await expect(db.executeQuery(bad)).rejects.toThrow(/no_such_column/);
    // Its first run evicted 20 before the server refused it (the Close goes out in front of the Parse), but the failed
    // statement takes no place: the second run evicts nothing, nor does the next good statement.
    expect(await prepared(db)).toEqual(texts(21, 22));
    expect(await run(db, 23)).toBe(231);
    expect(await prepared(db)).toEqual(texts(21, 22, 23));
    expect(await run(db, 24)).toBe(241);
    expect(await prepared(db)).toEqual(texts(22, 23, 24));
  });
});

describe.skipIf(!pgUrl)('no named statements where none are allowed [postgres]', () => {
  it('prepares nothing by name with preparedStatementsPerConnection 0', async () => {
    const none = createDatabase({
      logError: () => {},
      url: pgUrl,
      dataDir: '',
      poolSize: 1,
      preparedStatementsPerConnection: 0,
    });
    try {
      for (const k of [1, 2, 1]) expect(await run(none.db, k)).toBe(k * 10 + 1);
      expect(await prepared(none.db)).toEqual([]);
      expect(none.load().statements).toEqual({ hits: 0, misses: 0, evictions: 0 });
    } finally {
      await none.destroy();
    }
  });
});

const bouncer = pgUrl && pgbouncerBinary();
if (pgUrl && !bouncer) reportMissingPgBouncer('prepared statements behind PgBouncer');

(bouncer ? describe : describe.skip)('behind PgBouncer in transaction mode [postgres]', () => {
  let pgbouncer: PgBouncer;
  let database: { url: string; drop(): Promise<void> };
  let through: Database;
  beforeAll(async () => {
    database = await createProcessDatabase(pgUrl);
    pgbouncer = await startPgBouncer(pgUrl);
    through = createDatabase({
      logError: () => {},
      url: pgbouncer.through(database.url),
      dataDir: '',
      poolSize: 4,
      pooler: 'transaction',
      preparedStatementsPerConnection: 2,
    });
  });
  afterAll(async () => {
    await through?.destroy();
    await pgbouncer?.stop();
    await database?.drop();
  });

  // PgBouncer 1.18 (Debian 12) keeps no prepared statements: a named one prepared in one transaction would be missing
  // on the server connection of the next. Without poolerPreparedStatements every statement runs unnamed and answers.
  it('runs marked statements unnamed, in concurrent transactions, more kinds than the bound', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        through.db.transaction().execute(async (trx) => {
          const out: number[] = [];
          for (const k of [1, 2, 3, 4, 5]) out.push(await run(trx, k, i));
          return out;
        }),
      ),
    );
    results.forEach((out, i) => expect(out).toEqual([1, 2, 3, 4, 5].map((k) => k * 10 + i)));
    expect(through.load().statements).toEqual({ hits: 0, misses: 0, evictions: 0 });
  });
});
