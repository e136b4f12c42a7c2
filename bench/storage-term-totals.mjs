// Issue 47 goal 2: the list of a bare word with a write before every list, so that no total is kept from the list
// before (a walk keeps its total until the store changes). This build against another (BASELINE_DIR), each with its
// own store of N search items (bench/search-item.mjs) loaded through the API, rounds alternated; judged by CPU, which
// the loaded machine leaves comparable where wall-clock time is mostly queueing.
// Usage: npm run build && BASELINE_DIR=/work/wt-base node bench/storage-term-totals.mjs
// Env:   ENGINE=sqlite|postgres (default sqlite); PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres;
//        each build gets a database of its own, dropped afterwards); N (10000); ROUNDS (4); LISTS (100 pairs a round
//        and shape); QUERIES (default invoice,order: 1 item in 5 and 4 in 5 hold the word; the half reader may read
//        half of them); LIMIT (100).
// A round of a build, per query: LISTS times a create then the list (the half reader), then LISTS creates alone; the
// list's CPU is the difference of the two phases' CPU (the service process, and on PostgreSQL the server processes of
// the build's database too), divided by LISTS. Prints each round and the medians.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { searchItem } from './search-item.mjs';
import {
  ROOT,
  createBenchDatabase,
  freePort,
  median,
  processCpuMicros,
  startService,
  writeBenchConfig,
} from './lib.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const N = Number(process.env.N ?? 10000);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const LISTS = Number(process.env.LISTS ?? 100);
const LIMIT = Number(process.env.LIMIT ?? 100);
const QUERIES = (process.env.QUERIES ?? 'invoice,order').split(',');
const BASELINE_DIR = process.env.BASELINE_DIR;
if (!BASELINE_DIR) throw new Error('BASELINE_DIR: a built checkout to compare with (e.g. /work/wt-base)');
const KEYS = { writer: 'k-terms-writer-0123456789', half: 'k-terms-half-0123456789' };
const STORE = '/cxf/svc-core/storage/store/search';

/** CPU time (us) of the server processes of a database so far (PostgreSQL on this machine), by pid. */
async function serverCpu(client) {
  const { rows } = await client.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  let us = 0;
  for (const { pid } of rows) {
    try {
      us += Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
    } catch {} // ended meanwhile
  }
  return us;
}

async function startBuild(name, main) {
  const { root, configFile } = writeBenchConfig('svc-bench-terms-', [
    { name: 'writer', key: KEYS.writer, roles: ['writer', 'everyone'] },
    { name: 'half', key: KEYS.half, roles: ['half-0'] },
  ]);
  const database =
    ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, `svc_bench_terms_${name}`) : undefined;
  const service = await startService({
    port: await freePort(),
    configFile,
    main,
    env: database ? { DATABASE_URL: database.url } : {},
  }).catch(async (error) => {
    await database?.drop();
    rmSync(root, { recursive: true, force: true });
    throw error;
  });
  const pool = new Pool(service.url, { connections: 50, pipelining: 1 });
  const monitor = database ? new pg.Client({ connectionString: database.url }) : undefined;
  await monitor?.connect();
  let next = 0;
  const create = async () => {
    const i = next++;
    const res = await pool.request({
      path: STORE,
      method: 'POST',
      headers: { 'x-apikey': KEYS.writer, 'content-type': 'application/json' },
      body: JSON.stringify(searchItem(i)),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`create ${i}: ${res.statusCode} ${text}`);
  };
  const list = async (query) => {
    const res = await pool.request({
      path: `${STORE}?query=${encodeURIComponent(query)}&limit=${LIMIT}`,
      method: 'GET',
      headers: { 'x-apikey': KEYS.half },
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`list ${query}: ${res.statusCode} ${text}`);
    return JSON.parse(text).total;
  };
  const cpu = async () => processCpuMicros(service.pid) + (monitor ? await serverCpu(monitor) : 0);
  return {
    name,
    async load() {
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (next < N) await create();
        }),
      );
    },
    /** One round of a query: CPU us of a list (with a create before it) beyond a create alone; p50 ms of the list. */
    async round(query) {
      const times = [];
      let total = 0;
      const c0 = await cpu();
      for (let i = 0; i < LISTS; i++) {
        await create();
        const t0 = performance.now();
        total = await list(query);
        times.push(performance.now() - t0);
      }
      const c1 = await cpu();
      for (let i = 0; i < LISTS; i++) await create();
      const c2 = await cpu();
      return { list: (c1 - c0 - (c2 - c1)) / LISTS, create: (c2 - c1) / LISTS, p50: median(times), total };
    },
    async close() {
      await monitor?.end();
      await pool.close();
      await service.close();
      await database?.drop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

const builds = [];
try {
  builds.push(await startBuild('this', join(ROOT, 'dist/main.js')));
  builds.push(await startBuild('base', join(BASELINE_DIR, 'dist/main.js')));
  for (const b of builds) await b.load();
  console.log(
    `${ENGINE}: ${N} items loaded into each build; ${LISTS} lists a round, a create before each; limit ${LIMIT}`,
  );
  const results = new Map();
  for (let r = 0; r < ROUNDS; r++) {
    for (const query of QUERIES) {
      for (const b of r % 2 === 0 ? builds : [...builds].reverse()) {
        const x = await b.round(query);
        const key = `${query} ${b.name}`;
        if (!results.has(key)) results.set(key, []);
        results.get(key).push(x);
        console.log(
          `round ${r + 1} ${query} ${b.name}: list ${Math.round(x.list)} us CPU, create ${Math.round(x.create)} us, p50 ${x.p50.toFixed(1)} ms, total ${x.total}`,
        );
      }
    }
  }
  console.log(
    `\n${ENGINE}, medians of ${ROUNDS} rounds (CPU us a list beyond its create; service${ENGINE === 'postgres' ? ' + server' : ''})`,
  );
  console.log(
    '| query | this build: list CPU | base: list CPU | ratio | create CPU this / base | p50 ms this / base |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const query of QUERIES) {
    const [mine, base] = ['this', 'base'].map((b) => results.get(`${query} ${b}`));
    const m = (xs, k) => median(xs.map((x) => x[k]));
    console.log(
      `| ${query} | ${Math.round(m(mine, 'list'))} | ${Math.round(m(base, 'list'))} | ${(m(mine, 'list') / m(base, 'list')).toFixed(2)} | ${Math.round(m(mine, 'create'))} / ${Math.round(m(base, 'create'))} | ${m(mine, 'p50').toFixed(1)} / ${m(base, 'p50').toFixed(1)} |`,
    );
  }
} finally {
  for (const b of builds) await b.close();
}
