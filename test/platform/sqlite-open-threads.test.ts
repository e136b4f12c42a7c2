import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { readOffThread } from '../../src/platform/db/read-off-thread.js';
import type { Database } from '../../src/platform/db/database.js';
import { openTestDatabase } from '../helpers/test-app.js';

/** The operating system's threads of this process (Linux). */
const threads = () => readdirSync('/proc/self/task').length;

// The start command opens SQLite's reader threads and writer thread before it listens (Database.openThreads), so the
// first read and the first write after a start do not wait for a thread to start.
describe('SQLite threads opened before the first request (openThreads)', () => {
  let database: Database;
  let destroyed = false;

  beforeEach(async () => {
    destroyed = false;
    database = await openTestDatabase('sqlite');
    await sql`CREATE TABLE things (id integer PRIMARY KEY, name text)`.execute(database.db);
    await sql`INSERT INTO things VALUES (1, 'one')`.execute(database.db);
    // libuv's thread pool starts on its first use: used here first, so that only the database's threads are counted.
    await readFile(new URL(import.meta.url));
  });

  afterEach(async () => {
    if (!destroyed) await database.destroy();
  });

  it('starts the two reader threads and the writer thread at once, and the first read and write run on them', async () => {
    const before = threads();
    await database.openThreads!();
    expect(threads() - before).toBe(3);
    await database.openThreads!(); // once only
    expect(threads() - before).toBe(3);

    const read = await readOffThread(
      database.data,
      sql<{ name: string }>`SELECT name FROM things WHERE id = 1`.compile(database.db),
    );
    expect(read.rows).toEqual([{ name: 'one' }]);
    const written = await database.data.offThreadWriter!([
      { sql: 'INSERT INTO things (id, name) VALUES (?, ?) RETURNING id', parameters: [2, 'two'] },
    ]);
    expect(written).toEqual([2]);
    expect(threads() - before).toBe(3); // no thread started for them
    const rows = await sql<{ name: string }>`SELECT name FROM things ORDER BY id`.execute(database.db);
    expect(rows.rows.map((r) => r.name)).toEqual(['one', 'two']);
  });

  it('leaves no thread running after the database is closed, and opens none once closed', async () => {
    const before = threads();
    await database.openThreads!();
    destroyed = true;
    await database.destroy();
    expect(threads()).toBe(before);
    await database.openThreads!();
    expect(threads()).toBe(before);
  });
});
