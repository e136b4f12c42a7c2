// Concurrent updates of the items of one store (PUT of existing ids, 50 in flight), the shape that queues on the
// store's change count (storage_stores.changes, storage-008) on PostgreSQL: every write holds the store's row from its
// items' statement to its commit.
// Usage: npm run build && node bench/storage-updates.mjs
// Env:   ENGINE=sqlite|postgres (default sqlite); PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres);
//        ITEMS (2000, created first), ROUNDS (3), DURATION (5 s), CONNECTIONS (50).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { searchItem } from './search-item.mjs';
import { createBenchDatabase, freePort, median, startService } from './lib.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const ITEMS = Number(process.env.ITEMS ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const DURATION = Number(process.env.DURATION ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const KEY = 'k-updates-writer-0123456789';

const root = mkdtempSync(join(tmpdir(), 'svc-bench-updates-'));
const configFile = join(root, 'config.json');
writeFileSync(
  configFile,
  JSON.stringify({ tenants: [{ name: 'bench', apiKeys: [{ name: 'writer', key: KEY, roles: ['writer'] }] }] }),
);
const benchDb = ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_updates') : undefined;
const service = await startService({
  port: await freePort(),
  configFile,
  env: benchDb ? { DATABASE_URL: benchDb.url } : {},
});

/** PUTs item ids drawn by `next` for `seconds` (or until `next` answers undefined), CONNECTIONS in flight; answers the count. */
async function put(next, seconds) {
  const pool = new Pool(service.url, { connections: CONNECTIONS, pipelining: 1 });
  const end = performance.now() + seconds * 1000;
  let done = 0;
  let i = 0;
  const worker = async () => {
    for (let n = next(i++); n !== undefined && performance.now() < end; n = next(i++)) {
      const res = await pool.request({
        path: `/cxf/svc-core/storage/store/updates/item-${n}`,
        method: 'PUT',
        headers: { 'x-apikey': KEY, 'content-type': 'application/json' },
        body: JSON.stringify(searchItem(n + i)),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`PUT item-${n}: ${res.statusCode} ${text}`);
      done++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  await pool.close();
  return done;
}

try {
  await put((i) => (i < ITEMS ? i : undefined), 3600);
  const rates = [];
  for (let r = 0; r < ROUNDS; r++)
    rates.push(Math.round((await put(() => Math.floor(Math.random() * ITEMS), DURATION)) / DURATION));
  console.log(
    `${ENGINE}: updates of ${ITEMS} items of one store, ${CONNECTIONS} connections: ${median(rates)} updates/s (rounds ${rates.join(', ')})`,
  );
} finally {
  await service.close();
  rmSync(root, { recursive: true, force: true });
  await benchDb?.drop();
}
