import { afterAll, expect, inject, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { createDatabase } from '../../src/platform/db/database.js';
import { preparedOnServer, rowsAsArrays } from '../../src/platform/db/prepared-query.js';

// The service's PostgreSQL sessions run without JIT compilation and without parallel workers: its statements are
// short, a JIT paid 150-250 ms for 2 ms of work, and a parallel worker ~4 ms to start for a list walk of ~1.5 ms.
const database = inject('pgUrl')
  ? createDatabase({ logError: () => {}, url: inject('pgUrl'), dataDir: '', poolSize: 2 })
  : undefined;
afterAll(() => database?.destroy());

it.skipIf(!database)('opens PostgreSQL sessions with jit off and no parallel workers per query', async () => {
  const jit = await sql<{ jit: string }>`SHOW jit`.execute(database!.db);
  expect(jit.rows[0]!.jit).toBe('off');
  const parallel = await sql<{ max_parallel_workers_per_gather: string }>`SHOW max_parallel_workers_per_gather`.execute(
    database!.db,
  );
  expect(parallel.rows[0]!.max_parallel_workers_per_gather).toBe('0');
});

// Statements set so (runAs, postgres-statements.ts) run as named prepared statements: parsed once per connection,
// arrays where also set so, at most 500 per connection by default, the least recently used closed past it
// (test/platform/prepared-statement-lru.test.ts has the eviction in detail).
it.skipIf(!inject('pgUrl'))(
  'prepares marked statements on the server, as arrays where marked, at most 500 per connection',
  async () => {
    const one = createDatabase({ logError: () => {}, url: inject('pgUrl'), dataDir: '', poolSize: 1 });
    try {
      const run = (n: number) =>
        one.db.executeQuery(
          preparedOnServer(
            rowsAsArrays<[number, string]>(sql`SELECT ${n}::int + ${sql.lit(n)} AS twice, 'x' AS x`.compile(one.db)),
          ),
        );
      expect((await run(1)).rows).toEqual([[2, 'x']]);
      const prepared = () =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements`
          .execute(one.db)
          .then((r) => r.rows[0]!.n);
      expect(await prepared()).toBe(1);
      for (let n = 2; n <= 600; n++) expect((await run(n)).rows).toEqual([[2 * n, 'x']]);
      expect(await prepared()).toBe(500);
      // A kept one runs again by name; an evicted one is prepared again in the place of the least recently used.
      expect((await run(599)).rows).toEqual([[1198, 'x']]);
      expect((await run(7)).rows).toEqual([[14, 'x']]);
      expect(await prepared()).toBe(500);
      expect(one.load().statements).toEqual({ hits: 1, misses: 601, evictions: 101 });
    } finally {
      await one.destroy();
    }
  },
);

// What a statement's text says is SQL, not an instruction: a leading comment neither prepares it nor changes its rows.
it.skipIf(!inject('pgUrl'))(
  'prepares and answers arrays by what the compiled query asks, never by comments in its text',
  async () => {
    const one = createDatabase({ logError: () => {}, url: inject('pgUrl'), dataDir: '', poolSize: 1 });
    try {
      const commented = await one.db.executeQuery(sql`/*prepared*/ SELECT 1 AS one`.compile(one.db));
      expect(commented.rows).toEqual([{ one: 1 }]);
      const statements = () =>
        sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`
          .execute(one.db)
          .then((r) => r.rows.map((x) => x.statement));
      expect(await statements()).toEqual([]);
      expect((await one.db.executeQuery(preparedOnServer(sql`SELECT 2 AS two`.compile(one.db)))).rows).toEqual([
        { two: 2 },
      ]);
      expect(await statements()).toEqual(['SELECT 2 AS two']);
    } finally {
      await one.destroy();
    }
  },
);

// A pooled connection that fails while idle (a restarted server, a killed backend) reaches no caller: the pool drops
// it, and the error goes to the logger createDatabase was given.
it.skipIf(!inject('pgUrl'))('logs the error of an idle pooled connection that fails', async () => {
  let logged: (entry: { error: Error; what: string }) => void = () => undefined;
  const seen = new Promise<{ error: Error; what: string }>((resolve) => (logged = resolve));
  const one = createDatabase({
    url: inject('pgUrl'),
    dataDir: '',
    poolSize: 1,
    logError: (error, what) => logged({ error, what }),
  });
  const other = new pg.Client({ connectionString: inject('pgUrl') });
  try {
    const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(one.db);
    await other.connect();
    // The pool's one connection is idle now; its backend is ended from outside.
    await other.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    const entry = await seen;
    expect(entry.what).toMatch(/idle PostgreSQL pool connection/);
    expect(entry.error.message).toMatch(/terminat/i);
    // The pool opens a new connection for the next statement.
    expect((await sql<{ n: number }>`SELECT 1 AS n`.execute(one.db)).rows).toEqual([{ n: 1 }]);
  } finally {
    await other.end();
    await one.destroy();
  }
});
