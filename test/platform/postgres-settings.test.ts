import { afterAll, expect, inject, it } from 'vitest';
import { sql } from 'kysely';
import { createDatabase } from '../../src/platform/db/database.js';
import { preparedOnServer, rowsAsArrays } from '../../src/platform/db/prepared-query.js';

// The service's PostgreSQL sessions run without JIT compilation and without parallel workers: its statements are
// short, a JIT paid 150-250 ms for 2 ms of work, and a parallel worker ~4 ms to start for a list walk of ~1.5 ms.
const database = inject('pgUrl') ? createDatabase({ url: inject('pgUrl'), dataDir: '', poolSize: 2 }) : undefined;
afterAll(() => database?.destroy());

it.skipIf(!database)('opens PostgreSQL sessions with jit off and no parallel workers per query', async () => {
  const jit = await sql<{ jit: string }>`SHOW jit`.execute(database!.db);
  expect(jit.rows[0]!.jit).toBe('off');
  const parallel = await sql<{ max_parallel_workers_per_gather: string }>`SHOW max_parallel_workers_per_gather`.execute(
    database!.db,
  );
  expect(parallel.rows[0]!.max_parallel_workers_per_gather).toBe('0');
});

// Marked statements run as named prepared statements (database.ts honourStatementMarks): parsed once per connection,
// arrays where also marked so, at most 500 per connection, past which new ones run unnamed and still answer.
it.skipIf(!inject('pgUrl'))(
  'prepares marked statements on the server, as arrays where marked, at most 500 per connection',
  async () => {
    const one = createDatabase({ url: inject('pgUrl'), dataDir: '', poolSize: 1 });
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
      // A prepared one runs again by name; an unnamed one answers as well.
      expect((await run(7)).rows).toEqual([[14, 'x']]);
      expect((await run(599)).rows).toEqual([[1198, 'x']]);
      expect(await prepared()).toBe(500);
    } finally {
      await one.destroy();
    }
  },
);
