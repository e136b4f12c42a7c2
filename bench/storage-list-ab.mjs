// Issue 47 goal 1: the CPU a list costs in this build against another, in short alternated blocks. Each build loads the
// search benchmark's store (bench/search-item.mjs) into a store of its own (SQLite: a data directory; PostgreSQL: a
// database), since a build's schema may hold migrations the other does not know, and blocks of LISTS lists go to
// one build and then the other, the order swapped each round. On a shared machine whose speed drifts between 3 s
// rounds (bench/storage-search.mjs), blocks of a second or two paired this way show a ratio the rounds cannot.
// Usage: npm run build && BASELINE_DIR=<a built checkout> node bench/storage-list-ab.mjs
// Env:   ENGINE=sqlite|postgres; PG_ADMIN_URL; ITEMS (10000); LISTS (a block, 200); WARMUP (unmeasured lists before
//        each block, 50); CONNECTIONS (10); ROUNDS (10);
//        SORT (value.n|DESC); READER (half); IF_NONE_MATCH=1: every list sends the list's tag (read once before each
//        block), so the answers are 304s: what the tag's own read costs. WRITE_BETWEEN=1: each list follows a create
//        on its connection (the store changed before every list: no answer kept from the one before; the CPU then is
//        a create's and a list's together).
// Prints each build's CPU per list (the scheduler's account of all its threads) and lists/s, medians of the blocks, and
// the ratio of each round's pair; on PostgreSQL also the server's CPU per list: the backends of the bench's database
// (both builds' pools; the idle build's spend next to nothing), read from /proc/<pid>/schedstat around each block.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { loadSearchItems, searchItem } from './search-item.mjs';
import {
  createBenchDatabase,
  freePort,
  median,
  processCpuMicros,
  ROOT,
  startService,
  writeBenchConfig,
} from './lib.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ITEMS = Number(process.env.ITEMS ?? 10000);
const LISTS = Number(process.env.LISTS ?? 200);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const WARMUP = Number(process.env.WARMUP ?? 50);
const SORT = process.env.SORT ?? 'value.n|DESC';
const READER = process.env.READER ?? 'half';
const IF_NONE_MATCH = process.env.IF_NONE_MATCH === '1';
const WRITE_BETWEEN = process.env.WRITE_BETWEEN === '1';
if (!process.env.BASELINE_DIR) throw new Error('BASELINE_DIR: a built checkout to compare with');
const KEYS = { writer: 'k-listab-writer-0123456789', half: 'k-listab-half-0123456789', all: 'k-listab-all-0123456789' };

const { root, configFile } = writeBenchConfig('svc-bench-listab-', [
  { name: 'writer', key: KEYS.writer, roles: ['writer'] },
  { name: 'half', key: KEYS.half, roles: ['half-0'] },
  { name: 'all', key: KEYS.all, roles: ['everyone'] },
]);
const builds = { this: join(ROOT, 'dist/main.js'), baseline: join(process.env.BASELINE_DIR, 'dist/main.js') };
const dbs = {};
if (ENGINE === 'postgres')
  for (const name of Object.keys(builds))
    dbs[name] = await createBenchDatabase(PG_ADMIN_URL, `svc_bench_listab_${name}`);
const db = dbs.this;
const admin = db ? new pg.Client({ connectionString: PG_ADMIN_URL }) : undefined;
await admin?.connect();
/** The CPU so far (µs) of each backend connected to the bench's databases, by pid (none on SQLite). */
const serverCpu = async () => {
  const out = new Map();
  if (!admin) return out;
  const { rows } = await admin.query(
    "SELECT pid FROM pg_stat_activity WHERE datname = ANY($1) AND backend_type = 'client backend'",
    [Object.values(dbs).map((d) => new URL(d.url).pathname.slice(1))],
  );
  for (const { pid } of rows) {
    try {
      out.set(pid, Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000);
    } catch {} // the backend ended meanwhile
  }
  return out;
};
const loaded = mkdtempSync(join(tmpdir(), 'svc-bench-listab-data-'));
const services = [];
try {
  for (const [name, main] of Object.entries(builds)) {
    const dataDir = join(loaded, `data-${name}`);
    mkdirSync(dataDir);
    const env = dbs[name] ? { DATABASE_URL: dbs[name].url } : {};
    const loader = await startService({ port: await freePort(), configFile, env, dataDir, main });
    try {
      const pool = new Pool(loader.url, { connections: 50 });
      await loadSearchItems(pool, KEYS.writer, ITEMS);
      await pool.close();
    } finally {
      await loader.close();
    }
    services.push({ name, service: await startService({ port: await freePort(), configFile, env, dataDir, main }) });
  }
  const params = new URLSearchParams({
    filter: JSON.stringify([{ property: 'value.status', operator: 'eq', value: 'open' }]),
    sort: SORT,
    limit: '100',
  });
  const path = `/cxf/svc-core/storage/store/search?${params}`;
  let written = 0;
  /** `count` lists on CONNECTIONS connections. */
  const lists = async (pool, count) => {
    const headers = { 'x-apikey': KEYS[READER] };
    if (IF_NONE_MATCH) {
      const first = await pool.request({ method: 'GET', path, headers });
      await first.body.text();
      headers['if-none-match'] = first.headers.etag;
    }
    const status = IF_NONE_MATCH ? 304 : 200;
    let sent = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (sent < count) {
          sent++;
          if (WRITE_BETWEEN) {
            const created = await pool.request({
              method: 'POST',
              path: '/cxf/svc-core/storage/store/search',
              headers: { 'x-apikey': KEYS.writer, 'content-type': 'application/json' },
              body: JSON.stringify(searchItem(ITEMS + written++)),
            });
            await created.body.text();
            if (created.statusCode !== 200) throw new Error(`create: ${created.statusCode}`);
          }
          const res = await pool.request({ method: 'GET', path, headers });
          await res.body.text();
          if (res.statusCode !== status) throw new Error(`list: ${res.statusCode}`);
        }
      }),
    );
  };
  /**
   * LISTS lists after WARMUP unmeasured ones (a build that sat idle through the other's block spent up to 1.7x the CPU
   * a list in its first block: cold caches on a busy machine): answers the CPU per list (µs) and lists/s.
   */
  const block = async ({ service }) => {
    const pool = new Pool(service.url, { connections: CONNECTIONS });
    await lists(pool, WARMUP);
    const server = await serverCpu();
    const cpu = processCpuMicros(service.pid);
    const t0 = performance.now();
    await lists(pool, LISTS);
    const seconds = (performance.now() - t0) / 1000;
    const spent = processCpuMicros(service.pid) - cpu;
    const serverSpent = [...(await serverCpu())].reduce((sum, [pid, us]) => sum + us - (server.get(pid) ?? 0), 0);
    await pool.close();
    return { cpu: spent / LISTS, server: serverSpent / LISTS, rps: LISTS / seconds };
  };
  // First lists: compiles, counts, and each connection's first runs of each prepared statement (PostgreSQL plans those
  // for their values: custom plans).
  for (const s of services) {
    const first = await block(s);
    console.log(
      `${s.name}, first block: CPU ${Math.round(first.cpu)} µs a list` +
        (db ? `, server ${Math.round(first.server)} µs a list` : ''),
    );
  }
  const results = Object.fromEntries(services.map((s) => [s.name, []]));
  for (let round = 0; round < ROUNDS; round++)
    for (const s of round % 2 ? services : [...services].reverse()) results[s.name].push(await block(s));
  console.log(`${ENGINE}, ${ITEMS} items, ${READER} reader, sort ${SORT}, ${ROUNDS} rounds of ${LISTS} lists`);
  for (const [name, runs] of Object.entries(results))
    console.log(
      `${name}: CPU ${Math.round(median(runs.map((r) => r.cpu)))} µs a list, ${Math.round(median(runs.map((r) => r.rps)))} lists/s (blocks: ${runs.map((r) => Math.round(r.cpu)).join(', ')})` +
        (db
          ? `; server ${Math.round(median(runs.map((r) => r.server)))} µs a list (blocks: ${runs.map((r) => Math.round(r.server)).join(', ')})`
          : ''),
    );
  // The pairs' geometric mean: the order of the builds alternates, so what the first (or second) block pays cancels.
  const pairs = results.this.map((r, i) => r.cpu / results.baseline[i].cpu);
  const mean = Math.exp(pairs.reduce((sum, p) => sum + Math.log(p), 0) / pairs.length);
  console.log(
    `this / baseline, CPU a list: ${mean.toFixed(3)} (geometric mean of the pairs: ${pairs.map((p) => p.toFixed(2)).join(', ')})`,
  );
  if (db) {
    const both = results.this.map(
      (r, i) => (r.cpu + r.server) / (results.baseline[i].cpu + results.baseline[i].server),
    );
    const bothMean = Math.exp(both.reduce((sum, p) => sum + Math.log(p), 0) / both.length);
    console.log(
      `this / baseline, service + server CPU a list: ${bothMean.toFixed(3)} (pairs: ${both.map((p) => p.toFixed(2)).join(', ')})`,
    );
  }
} finally {
  await admin?.end();
  for (const { service } of services) await service.close();
  for (const d of Object.values(dbs)) await d.drop();
  rmSync(loaded, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
}
