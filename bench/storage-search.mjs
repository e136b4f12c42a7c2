// Issue 14: storage lists with filters, sorts and text queries, for callers who may read little (2%), half or all of a
// store, against a bare Fastify route answering the same JSON in the same run.
// Usage: npm run build && node bench/storage-search.mjs
// Env:   ENGINE=sqlite|postgres (default sqlite); PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres; the
//        bench creates its own database there and drops it afterwards); SIZES=10000,100000 (add 1000000 for the large
//        store); ROUNDS (3), DURATION (3 s), CONNECTIONS (50); READERS=little,half,all and THROUGHPUT_SHAPES (label
//        prefixes) for the throughput runs at the smallest size; LOAD_CONNECTIONS (50); FRESH=0 skips, on PostgreSQL,
//        the second latency pass after a VACUUM ANALYZE (statistics as the service's upkeep or autovacuum leaves them);
//        READER_THREADS sets SQLite's reader threads (database.sqliteReaderThreads; 0 runs the lists on the main thread);
//        KEEP_DB=1 keeps the PostgreSQL database afterwards and prints its URL (to look at its plans; drop it by hand);
//        LATENCY_READER=half|little|all (default half) is the reader of the latency runs; LATENCY_LIMIT (default 100)
//        their limit: 0 asks for the total alone, which every request then counts (a walk keeps it between changes);
//        WRITE_BETWEEN=1 creates an item before every list of the latency runs (sequential requests, DURATION s a
//        round; the list alone is timed), so that no list finds the store as the one before left it (issue 47).
//        UPKEEP=1 adds a latency pass after the service's own statistics upkeep has run (awaitUpkeep: no manual
//        ANALYZE); SERVICE_MAIN=<another build's dist/main.js> measures that build; REUSE_DB=<SQLite data dir or PostgreSQL URL> measures a store kept by KEEP_DB=1 (no load).
//        CONDITIONAL=0 leaves out the conditional GET beside each throughput list (If-None-Match with the list's ETag,
//        answered 304 from the store's change count alone: issue 47 goal 3, at least 0.8 of the bare route).
//        LATENCY=0 skips the latency runs (the throughput runs alone). LIST_CACHE_SECONDS=0: this build keeps no list
//        answer (storage.listCacheSeconds), so every list reads its page, as the builds before kept answers did.
//        BASELINE_DIR (a built checkout of another build, e.g. the build before a change): starts that build beside
//        this one, loads it with the same items and adds its list to each throughput run (alternated round by round,
//        its CPU per request read from its own process), so the two builds compare in one run.
// Loading: through the API (POST create, LOAD_CONNECTIONS in flight), so the store is indexed exactly as users fill it
// and the create throughput is measured on the way; lists are measured right after the load, with the database's
// statistics as the load left them (PostgreSQL: no manual ANALYZE; the service's own upkeep may run meanwhile).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import pg from 'pg';
import { searchItem } from './search-item.mjs';
import {
  compare,
  cpuMicros,
  load,
  median,
  printTable,
  processCpuMicros,
  startBaseline,
  startService,
  createBenchDatabase,
  freePort,
} from './lib.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const DURATION = Number(process.env.DURATION ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const LOAD_CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 50);
const SIZES = (process.env.SIZES ?? '10000,100000')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const READERS = (process.env.READERS ?? 'little,half,all').split(',');
// Shapes measured for throughput at the smallest size (prefixes of the SHAPES labels); every shape gets latency.
const THROUGHPUT_SHAPES = (
  process.env.THROUGHPUT_SHAPES ?? 'filter status (string) + sort,filter price >= 500 + sort,filter owner (string'
).split(',');
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const FRESH = ENGINE === 'postgres' && process.env.FRESH !== '0';
const LATENCY_READER = process.env.LATENCY_READER ?? 'half';
const LATENCY_LIMIT = process.env.LATENCY_LIMIT ?? '100';
const WRITE_BETWEEN = process.env.WRITE_BETWEEN === '1';
const UPKEEP = process.env.UPKEEP === '1';
const CONDITIONAL = process.env.CONDITIONAL !== '0';
const BASELINE_DIR = process.env.BASELINE_DIR;
const LATENCY = process.env.LATENCY !== '0';
const STORE = 'search';
const KEYS = {
  writer: 'k-search-writer-0123456789',
  little: 'k-search-little-0123456789',
  half: 'k-search-half-0123456789',
  all: 'k-search-all-0123456789',
};

const PORT = await freePort();
const root = mkdtempSync(join(tmpdir(), 'svc-bench-search-'));
const configFile = join(root, 'config.json');
const baseConfigFile = join(root, 'config-base.json');
// LIST_CACHE_SECONDS: storage.listCacheSeconds of this build (0: no list answer kept, each list reads its page); the
// other build (BASELINE_DIR) is started without it, as a build before the setting would reject it.
const listCache =
  process.env.LIST_CACHE_SECONDS !== undefined
    ? { storage: { listCacheSeconds: Number(process.env.LIST_CACHE_SECONDS) } }
    : {};
const benchConfig = {
  // READER_THREADS: SQLite's reader threads for the lists (database.sqliteReaderThreads; unset: the default).
  ...(process.env.READER_THREADS !== undefined
    ? { database: { sqliteReaderThreads: Number(process.env.READER_THREADS) } }
    : {}),
  tenants: [
    {
      name: 'bench',
      apiKeys: [
        { name: 'writer', key: KEYS.writer, roles: ['writer'] },
        // 1 of 50 roles (2% of the items), one of two halves, and a role every item names.
        { name: 'little', key: KEYS.little, roles: ['role-7'] },
        { name: 'half', key: KEYS.half, roles: ['half-0'] },
        { name: 'all', key: KEYS.all, roles: ['everyone'] },
      ],
    },
  ],
};
writeFileSync(configFile, JSON.stringify({ ...benchConfig, ...listCache }));
writeFileSync(baseConfigFile, JSON.stringify(benchConfig));

/** Creates items [from, to) through the API, LOAD_CONNECTIONS at a time; answers items/s. */
async function loadItems(url, from, to) {
  const pool = new Pool(url, { connections: LOAD_CONNECTIONS, pipelining: 1 });
  let next = from;
  const t0 = performance.now();
  const worker = async () => {
    while (next < to) {
      const i = next++;
      const res = await pool.request({
        path: `/cxf/svc-core/storage/store/${STORE}`,
        method: 'POST',
        headers: { 'x-apikey': KEYS.writer, 'content-type': 'application/json' },
        body: JSON.stringify(searchItem(i)),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`create ${i}: ${res.statusCode} ${text}`);
    }
  };
  await Promise.all(Array.from({ length: LOAD_CONNECTIONS }, worker));
  await pool.close();
  return (to - from) / ((performance.now() - t0) / 1000);
}

const f = (conditions) => JSON.stringify(conditions);
const SHAPES = {
  'filter status (string) + sort value.n DESC': {
    filter: f([{ property: 'value.status', operator: 'eq', value: 'open' }]),
    sort: 'value.n|DESC',
  },
  'filter status (string)': { filter: f([{ property: 'value.status', operator: 'eq', value: 'open' }]) },
  'filter price >= 500 (number)': { filter: f([{ property: 'value.price', operator: 'gte', value: 500 }]) },
  'filter price >= 500 + sort value.title ASC': {
    filter: f([{ property: 'value.price', operator: 'gte', value: 500 }]),
    sort: 'value.title|ASC',
  },
  'filter owner (string, 1% of items)': { filter: f([{ property: 'value.owner', operator: 'eq', value: 'user-42' }]) },
  'filter owner (1%) + sort value.n DESC': {
    filter: f([{ property: 'value.owner', operator: 'eq', value: 'user-42' }]),
    sort: 'value.n|DESC',
  },
  'filter n = 4242 (one item)': { filter: f([{ property: 'value.n', operator: 'eq', value: 4242 }]) },
  'query value.category:c2 (field)': { query: 'value.category:c2' },
  'query invoice (bare term)': { query: 'invoice' },
};
/** VACUUM ANALYZE of the bench's database: the statistics and visibility map as a finished upkeep leaves them. */
async function freshStatistics(url) {
  const client = new pg.Client(url);
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

/**
 * UPKEEP=1: waits until the service's own statistics upkeep (src/platform/db/statistics-upkeep.ts) has done what the
 * store's writes called for, without doing any of it itself. PostgreSQL: until no table of the service's schema is one
 * the upkeep would still vacuum or analyse (its thresholds: a tenth of the rows and at least 50, changed since the last
 * ANALYZE or written since the last VACUUM), read from pg_stat_user_tables; SQLite, where the upkeep runs
 * `PRAGMA optimize` every analyzeCheckSeconds (2 s), until its statistics (sqlite_stat1) stayed the same over three
 * checks. Answers a line saying what it waited for.
 */
async function awaitUpkeep() {
  const t0 = performance.now();
  const deadline = t0 + 1_800_000;
  if (ENGINE === 'postgres') {
    const client = new pg.Client(benchDb.url);
    await client.connect();
    try {
      for (;;) {
        const { rows } = await client.query(`select relname,
            n_live_tup::float8 as live, n_mod_since_analyze::float8 as changed,
            (last_analyze is not null or last_autoanalyze is not null) as analysed,
            (n_ins_since_vacuum + n_dead_tup)::float8 as unvacuumed
          from pg_stat_user_tables where schemaname = current_schema()`);
        const large = (n, live) => n >= 50 && n >= 0.1 * Math.max(live - n, 0);
        const pending = rows.filter(
          (r) => large(r.unvacuumed, r.live) || (r.changed >= 50 && (!r.analysed || large(r.changed, r.live))),
        );
        if (pending.length === 0) break;
        if (performance.now() > deadline)
          throw new Error(`upkeep: still pending ${pending.map((r) => r.relname).join(', ')}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    } finally {
      await client.end();
    }
    return `PostgreSQL upkeep done after ${Math.round((performance.now() - t0) / 1000)} s`;
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(join(service.dataDir, 'svc.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const stats = () =>
      db.prepare("select tbl, idx, stat from sqlite_stat1 where tbl like 'storage_item%' order by tbl, idx").all();
    let last = JSON.stringify(stats());
    for (let same = 0; same < 3; ) {
      await new Promise((r) => setTimeout(r, 2500));
      const now = JSON.stringify(stats());
      same = now === last ? same + 1 : 0;
      last = now;
    }
    const rows = stats().filter((r) => /_(order|lookup)_idx$/.test(r.idx ?? ''));
    return `SQLite statistics settled after ${Math.round((performance.now() - t0) / 1000)} s: ${rows
      .map((r) => `${r.idx} ${r.stat}`)
      .join('; ')}`;
  } finally {
    db.close();
  }
}

/** Items created between lists (WRITE_BETWEEN), numbered after the loaded ones. */
let written = 0;

/**
 * One round of WRITE_BETWEEN: for DURATION s, create an item, then time one list; answers the lists' p50 (ms) and their
 * median CPU (ms, listCpu).
 */
async function listsAfterWrites(url, key) {
  const times = [];
  const cpu = [];
  backends = undefined;
  const end = performance.now() + DURATION * 1000;
  while (performance.now() < end) {
    const res = await fetch(`${service.url}/cxf/svc-core/storage/store/${STORE}`, {
      method: 'POST',
      headers: { 'x-apikey': KEYS.writer, 'content-type': 'application/json' },
      body: JSON.stringify(searchItem(SIZES[SIZES.length - 1] + written++)),
    });
    if (res.status !== 200) throw new Error(`write between lists: ${res.status} ${await res.text()}`);
    const c0 = await listCpu();
    const t0 = performance.now();
    const list = await fetch(url, { headers: { 'x-apikey': key } });
    await list.arrayBuffer();
    times.push(performance.now() - t0);
    cpu.push((await listCpu()) - c0);
    if (list.status !== 200) throw new Error(`${url}: ${list.status}`);
  }
  const mid = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { p50: Math.round(mid(times) * 10) / 10, cpu: Math.round(mid(cpu) / 100) / 10 };
}

/**
 * CPU time so far (µs) of the service (all its threads) and, on PostgreSQL, of the server processes of the bench's
 * database: sampled around each list of WRITE_BETWEEN, when nothing else runs there, it is the list's own cost, which a
 * shared machine's queueing leaves out (the wall-clock p50 is mostly that queueing at a load average of 10-20).
 */
async function listCpu() {
  let us = processCpuMicros(service.pid);
  if (ENGINE === 'postgres') {
    backends ??= await backendPids();
    for (const pid of backends) {
      try {
        us += Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
      } catch {} // that connection ended
    }
  }
  return us;
}

/** The server processes of the service's connections to the bench's database (the pool keeps them). */
let backends;
async function backendPids() {
  const client = new pg.Client(benchDb.url);
  await client.connect();
  try {
    const { rows } = await client.query(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

const listUrl = (base, params, limit = '100') =>
  `${base}/cxf/svc-core/storage/store/${STORE}?${new URLSearchParams({ ...params, limit })}`;

async function fetchJson(url, key) {
  return (await fetchTagged(url, key)).body;
}

/** The list's answer and its ETag. */
async function fetchTagged(url, key) {
  const res = await fetch(url, { headers: { 'x-apikey': key } });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return { body, etag: res.headers.get('etag') };
}

/**
 * CPU per request of the process that answers each scenario (the service, or the bare route's `cpu` stat file), in µs:
 * a probe for `compare`, which alternates scenarios in order, so the probe follows them round by round.
 */
function cpuPerRequest(scenarios) {
  const names = Object.keys(scenarios);
  let run = 0;
  return {
    before() {
      const name = names[run++ % names.length];
      const file = scenarios[name].cpu ?? `/proc/${service.pid}/stat`;
      return { file, cpu: cpuMicros(file) };
    },
    after({ file, cpu }, r) {
      return r.total > 0 ? (cpuMicros(file) - cpu) / r.total : 0;
    },
  };
}

function printCpu(results) {
  const line = Object.entries(results)
    .map(([name, r]) => `${name}: ${Math.round(median(r.probes))} µs`)
    .join('; ');
  console.log(`CPU per request (median of rounds): ${line}`);
}

// REUSE_DB: a store kept by an earlier run (KEEP_DB=1): its SQLite data directory or its PostgreSQL URL; the items of
// SIZES are taken as loaded (no load, no throughput), and the store is kept afterwards.
const REUSE_DB = process.env.REUSE_DB;
const KEEP_DB = process.env.KEEP_DB === '1' || REUSE_DB !== undefined;
const benchDb =
  ENGINE !== 'postgres'
    ? undefined
    : REUSE_DB
      ? { url: REUSE_DB, drop: async () => {} }
      : await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_search');
const serviceEnv = ENGINE === 'postgres' ? { DATABASE_URL: benchDb.url } : {};
const engineName = ENGINE === 'postgres' ? 'PostgreSQL' : 'SQLite';
const service = await startService({
  // SERVICE_MAIN: another build's dist/main.js (e.g. /work/wt-base/dist/main.js), measured with this script.
  ...(process.env.SERVICE_MAIN ? { main: process.env.SERVICE_MAIN } : {}),
  port: PORT,
  configFile,
  env: serviceEnv,
  dataDir: ENGINE === 'postgres' ? undefined : REUSE_DB,
  keepData: KEEP_DB,
});
// The other build (BASELINE_DIR), on a database of its own, loaded with the same items.
const otherDb =
  BASELINE_DIR && ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_search_base') : undefined;
const other = BASELINE_DIR
  ? await startService({
      port: await freePort(),
      configFile: baseConfigFile,
      main: join(BASELINE_DIR, 'dist/main.js'),
      env: otherDb ? { DATABASE_URL: otherDb.url } : {},
    })
  : undefined;
const latencyRows = [];
try {
  let have = 0;
  for (const size of SIZES) {
    if (REUSE_DB) console.log(`\n${engineName}: the kept store of ${size} items (and the items written between lists)`);
    else {
      const rate = await loadItems(service.url, have, size);
      if (other && size === SIZES[0]) await loadItems(other.url, have, size);
      console.log(
        `\n${engineName}: loaded ${size} items through the API; creates ${Math.round(rate)} items/s (${LOAD_CONNECTIONS} connections)`,
      );
    }
    have = size;

    if (size === SIZES[0] && !REUSE_DB) {
      // Throughput: each shape and reader against the bare route answering the same JSON, alternated round by round.
      for (const reader of READERS) {
        for (const [label, params] of Object.entries(SHAPES).filter(([k]) =>
          THROUGHPUT_SHAPES.some((t) => k.startsWith(t)),
        )) {
          const url = listUrl(service.url, params);
          const { body: answer, etag } = await fetchTagged(url, KEYS[reader]);
          const base = await startBaseline(answer);
          try {
            const scenarios = {
              'bare route (same JSON)': { url: `${base.url}/x`, cpu: `/proc/${base.pid}/stat` },
              [`${reader} reader: ${label}`]: { url, headers: { 'x-apikey': KEYS[reader] } },
            };
            if (other)
              scenarios[`${reader} reader: ${label}, build at BASELINE_DIR`] = {
                url: listUrl(other.url, params),
                headers: { 'x-apikey': KEYS[reader] },
                cpu: `/proc/${other.pid}/stat`,
              };
            // The same list asked with its ETag: 304 after reading the store's change count only.
            if (CONDITIONAL)
              scenarios[`${reader} reader: ${label}, If-None-Match (304)`] = {
                url,
                headers: { 'x-apikey': KEYS[reader], 'if-none-match': etag },
                expect: 304,
              };
            const results = await compare(scenarios, {
              rounds: ROUNDS,
              duration: DURATION,
              connections: CONNECTIONS,
              probe: cpuPerRequest(scenarios),
            });
            printTable(
              `${engineName}, ${size} items, ${reader} reader (total ${answer.total}), ${CONNECTIONS} connections, ${ROUNDS} x ${DURATION} s`,
              results,
              'bare route (same JSON)',
            );
            printCpu(results);
          } finally {
            await base.close();
          }
        }
      }
    }

    // Latency of one request at a time (its own cost, no queueing), for the reader of half the store (or LATENCY_READER):
    // right after the load, then (PostgreSQL) with the statistics fresh, as they are once the upkeep or autovacuum has
    // run: plans differ.
    const passes = !LATENCY
      ? []
      : [
          ...(FRESH || UPKEEP ? ['right after the load'] : ['']),
          ...(UPKEEP ? ['after the statistics upkeep'] : []),
          ...(FRESH ? ['statistics fresh'] : []),
        ];
    for (const pass of passes) {
      if (pass === 'statistics fresh') await freshStatistics(benchDb.url);
      if (pass === 'after the statistics upkeep') console.log(await awaitUpkeep());
      for (const [label, params] of Object.entries(SHAPES)) {
        const url = listUrl(service.url, params, LATENCY_LIMIT);
        // The first request of a list counts its matches; asked again while the store is unchanged, a walked list
        // keeps that total (docs/api/storage.md, "Totals kept between changes"): both are shown.
        const t0 = performance.now();
        const answer = await fetchJson(url, KEYS[LATENCY_READER]);
        const first = Math.round(performance.now() - t0);
        const lat = [];
        const cpu = [];
        for (let r = 0; r < ROUNDS; r++) {
          if (WRITE_BETWEEN) {
            const round = await listsAfterWrites(url, KEYS[LATENCY_READER]);
            lat.push(round.p50);
            cpu.push(round.cpu);
            continue;
          }
          const one = await load({
            url,
            headers: { 'x-apikey': KEYS[LATENCY_READER] },
            connections: 1,
            duration: DURATION,
          });
          if (one.non2xx) throw new Error(`${label}: failed requests`);
          lat.push(one.p50);
        }
        latencyRows.push({
          size,
          label: pass ? `${label} (${pass})` : label,
          total: answer.total,
          first,
          p50: median(lat),
          lat,
          cpu: cpu.length ? median(cpu) : '',
        });
      }
    }
  }
  console.log(
    `\n${engineName}: ${LATENCY_READER} reader, one connection, limit=${LATENCY_LIMIT}${WRITE_BETWEEN ? ', a create before every list' : ''} (p50 ms, medians of ${ROUNDS} x ${DURATION} s)`,
  );
  console.log('| items in store | shape | total | first request ms | p50 ms | p50 per round | CPU ms a list |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of latencyRows)
    console.log(`| ${r.size} | ${r.label} | ${r.total} | ${r.first} | ${r.p50} | ${r.lat.join(', ')} | ${r.cpu} |`);
} finally {
  await service.close();
  await other?.close();
  await otherDb?.drop();
  rmSync(root, { recursive: true, force: true });
  if (KEEP_DB) console.log(`\nkept the store: REUSE_DB=${benchDb?.url ?? service.dataDir}`);
  else await benchDb?.drop();
}
