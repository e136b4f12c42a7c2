import { afterAll, expect, inject, it } from 'vitest';
import { sql } from 'kysely';
import { createDatabase } from '../../src/platform/db/database.js';

// The service's PostgreSQL sessions run without JIT compilation and without parallel workers: its statements are
// short, a JIT paid 150-250 ms for 2 ms of work, and a parallel worker ~4 ms to start for a list walk of ~1.5 ms.
const database = inject('pgUrl') ? createDatabase({ url: inject('pgUrl'), dataDir: '', poolSize: 2 }) : undefined;
afterAll(() => database?.destroy());

it.skipIf(!database)('opens PostgreSQL sessions with jit off and no parallel workers per query', async () => {
  const jit = await sql<{ jit: string }>`SHOW jit`.execute(database!.db);
  expect(jit.rows[0]!.jit).toBe('off');
  const parallel = await sql<{ max_parallel_workers_per_gather: string }>`SHOW max_parallel_workers_per_gather`.execute(database!.db);
  expect(parallel.rows[0]!.max_parallel_workers_per_gather).toBe('0');
});
