import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';

// The embedded database is opened with the configured page cache (database.sqliteCacheMiB) and its temporary
// structures in memory.
it('opens SQLite with the page cache of the config, 64 MiB unless set', async () => {
  for (const [configured, expected] of [
    [undefined, -65536],
    [512, -524288],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-settings-'));
    const config = parseConfig({
      server: { logLevel: 'silent' },
      database: { dataDir: dir, ...(configured ? { sqliteCacheMiB: configured } : {}) },
      identity: { bootstrapAdminPassword: 'admin-pass-1' },
    });
    const built = await buildApp(config, { logger: false });
    try {
      const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(built.database.db);
      expect(rows[0]!.cache_size).toBe(expected);
      // Statement and savepoint journals in memory (2 = MEMORY): the group commit's writes are half again as fast.
      const temp = await sql<{ temp_store: number }>`pragma temp_store`.execute(built.database.db);
      expect(temp.rows[0]!.temp_store).toBe(2);
    } finally {
      await built.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
});
