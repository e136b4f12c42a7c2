// Issue 12: data management assets. Loads ASSETS assets of one template through the API (creates in batches of 100,
// then VERSIONS - 1 updates per asset as single calls, 50 in flight: the update throughput), then measures get ACTIVE
// by customId against a bare route answering the same JSON (50 connections), and the p50 of queries with a filter and
// a sort at verbosity 1, limit 100, one connection. MORE grows the store afterwards (assets of one version each) and
// measures the queries again.
// Usage: npm run build && node bench/data-management-assets.mjs
// Env: ENGINE=sqlite|postgres; PG_ADMIN_URL; ASSETS (10000); VERSIONS (10); MORE (e.g. 100000: the size to grow to);
//      ROUNDS (3), DURATION (5 s), CONNECTIONS (50); GET=0 skips the get against the bare route.
//      PostgreSQL only: KEEP_DB=1 keeps the database afterwards and prints its URL (drop it by hand); DB_URL=<url> runs
//      on such a kept database instead of loading one (ASSETS and VERSIONS must say what it holds); BASELINE_DIR=<a
//      built checkout> starts that build too, on the same database, and the query rounds take turns between the two
//      builds (the figure is each build's median p50 and their ratio). On PostgreSQL each round also reports the CPU
//      per request of the service process and of its PostgreSQL backends (by application_name), which a busy machine's
//      scheduling does not inflate as it does latency. On SQLite the service's CPU per request (the database runs in
//      it) is reported in every run.
//      SHAPES=<words, comma-separated>: only the query shapes whose label contains one of them (e.g. SHAPES=owner,serial).
//      QUERY_CONNECTIONS (1): connections of the query rounds (50: the queries under load; the last column, req/s).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import {
  compare,
  createBenchDatabase,
  freePort,
  load,
  median,
  printTable,
  processCpuMicros,
  startBaseline,
  startService,
} from './lib.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ASSETS = Number(process.env.ASSETS ?? 10_000);
const VERSIONS = Number(process.env.VERSIONS ?? 10);
const MORE = process.env.MORE ? Number(process.env.MORE) : undefined;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const DURATION = Number(process.env.DURATION ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const GET = process.env.GET !== '0';
const QUERY_CONNECTIONS = Number(process.env.QUERY_CONNECTIONS ?? 1);
const DB_URL = process.env.DB_URL;
const BASELINE_DIR = process.env.BASELINE_DIR;
if ((DB_URL || BASELINE_DIR) && ENGINE !== 'postgres') throw new Error('DB_URL and BASELINE_DIR need ENGINE=postgres');
const AUTH = `Basic ${Buffer.from('dm:dm-pass-1').toString('base64')}`;
const HEADERS = { authorization: AUTH, 'content-type': 'application/json' };
const STATUSES = ['open', 'closed', 'waiting', 'done'];

const port = await freePort();
const root = mkdtempSync(join(tmpdir(), 'svc-bench-dma-'));
const configFile = join(root, 'config.json');
writeFileSync(
  configFile,
  JSON.stringify({ engine: { users: [{ name: 'dm', password: 'dm-pass-1', groups: ['DataManagement'] }] } }),
);
const benchDb = ENGINE === 'postgres' && !DB_URL ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_dma') : undefined;
const dbUrl = DB_URL ?? benchDb?.url;
/** The database URL with an application_name, so that a build's PostgreSQL backends can be told apart. */
const named = (u, app) => {
  const x = new URL(u);
  x.searchParams.set('application_name', app);
  return x.toString();
};
// The baseline build starts first: it migrates the fresh database to its own level, and this build then adds what it
// adds. Started after this build, an older build would refuse the database as soon as this build has a migration
// more (the running baseline does not look again; its statements may then use what the newer migration added).
const baseline = BASELINE_DIR
  ? await startService({
      port: await freePort(),
      configFile,
      env: { DATABASE_URL: named(dbUrl, 'bench_baseline') },
      main: join(BASELINE_DIR, 'dist/main.js'),
    })
  : undefined;
const service = await startService({
  port,
  configFile,
  env: dbUrl ? { DATABASE_URL: named(dbUrl, 'bench_this') } : {},
});
service.app = 'bench_this';
if (baseline) baseline.app = 'bench_baseline';
const admin = dbUrl ? new pg.Client({ connectionString: dbUrl }) : undefined;
await admin?.connect();

/**
 * CPU so far (µs) of a service process and of its PostgreSQL backends (those that still exist), from the scheduler's
 * nanoseconds (schedstat), not 10 ms ticks.
 */
async function cpuOf(svc) {
  const { rows } = await admin.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [svc.app]);
  const backends = new Map();
  for (const { pid } of rows) {
    try {
      backends.set(pid, processCpuMicros(pid));
    } catch {}
  }
  return { service: processCpuMicros(svc.pid), backends };
}
const backendDelta = (before, after) => {
  let sum = 0;
  for (const [pid, t] of after.backends) sum += t - (before.backends.get(pid) ?? t);
  return sum;
};
const PATH = '/engine/servlet/UploadServlet/api_protocol';
const url = `${service.url}${PATH}`;
const pool = new Pool(service.url, { connections: 50, pipelining: 1 });
const post = async (body) => {
  const res = await pool.request({
    path: '/engine/servlet/UploadServlet/api_protocol',
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text);
};
const TEMPLATE = {
  customId: 'machine',
  name: 'Machine',
  attributes: [
    { key: 'dm:n', type: 'integer' },
    { key: 'dm:status', type: 'enum', values: STATUSES },
    { key: 'dm:price', type: 'number' },
    { key: 'dm:title', type: 'string' },
    { key: 'dm:category', type: 'string' },
    { key: 'dm:owner', type: 'string' },
    { key: 'dm:serial', type: 'string', required: true },
    { key: 'dm:flag', type: 'boolean' },
    { key: 'dm:note', type: 'text' },
    { key: 'dm:location', type: 'string', versioned: false },
  ],
};
const attributes = (i, v) => ({
  'dm:n': i,
  'dm:status': STATUSES[(i + v) % 4],
  'dm:price': (i * 37) % 1000,
  'dm:title': `${i % 5 === 0 ? 'Invoice' : 'Order'} ${i}`,
  'dm:category': `c${i % 8}`,
  'dm:owner': `user-${i % 100}`,
  'dm:serial': `S-${i}-${v}`,
  'dm:flag': i % 2 === 0,
  'dm:note': `version ${v}`,
});
const assetOf = (i) => ({
  template: { customId: 'machine' },
  customId: `m-${i}`,
  displayName: `Machine ${i}`,
  attributes: attributes(i, 0),
  unversionedAttributes: { 'dm:location': `hall-${i % 20}` },
});

/** Runs `count` jobs, `inFlight` at a time; answers jobs per second. */
async function run(count, inFlight, job) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await job(next++);
    }),
  );
  return count / ((performance.now() - t0) / 1000);
}

async function createAssets(from, to) {
  const batches = Math.ceil((to - from) / 100);
  return (
    (await run(batches, 4, (b) => {
      const first = from + b * 100;
      return post({
        requests: Array.from({ length: Math.min(100, to - first) }, (_, k) => ({
          context: 'Asset',
          method: 'create',
          parameters: { asset: assetOf(first + k) },
        })),
      });
    })) * 100
  );
}

const q = (filters, sorters, extra = {}) => ({
  context: 'Asset',
  method: 'query',
  parameters: { limit: 100, verbosity: 1, filters, sorters, ...extra },
});
const ALL_SHAPES = {
  'filter status (25%) + sort dm:n DESC': q(
    [{ property: 'attributes.dm:status', operator: 'eq', value: 'open' }],
    [{ property: 'attributes.dm:n', direction: 'DESC' }],
  ),
  'filter owner (1%) + sort dm:n DESC': q(
    [{ property: 'attributes.dm:owner', operator: 'eq', value: 'user-42' }],
    [{ property: 'attributes.dm:n', direction: 'DESC' }],
  ),
  'filter category (12.5%) + sort displayName, user_ci': q(
    [{ property: 'attributes.dm:category', operator: 'eq', value: 'c3' }],
    [{ property: 'displayName' }],
    { sortMode: 'user_ci' },
  ),
  'filter price >= 900 (10%) + sort dm:title': q(
    [{ property: 'attributes.dm:price', operator: 'gte', value: 900 }],
    [{ property: 'attributes.dm:title' }],
  ),
  // Few matches of a range: the walk declines after its guards, the general page answers.
  'filter price >= 990 (1%) + sort dm:title': q(
    [{ property: 'attributes.dm:price', operator: 'gte', value: 990 }],
    [{ property: 'attributes.dm:title' }],
  ),
  'filter serial (one asset)': q(
    [{ property: 'attributes.dm:serial', operator: 'eq', value: `S-4242-${VERSIONS - 1}` }],
    [],
  ),
};

const ONLY = process.env.SHAPES?.split(',').filter(Boolean);
const SHAPES = Object.fromEntries(
  Object.entries(ALL_SHAPES).filter(([label]) => !ONLY || ONLY.some((w) => label.includes(w))),
);

/** One round of `body` at one connection against `svc`: the p50 (ms), and CPU µs per request where measured. */
async function p50(svc, label, body) {
  // SQLite runs in the service process: its CPU is the query's whole work.
  const ownBefore = admin ? undefined : processCpuMicros(svc.pid);
  const before = admin && (await cpuOf(svc));
  const one = await load({
    url: `${svc.url}${PATH}`,
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify(body),
    connections: QUERY_CONNECTIONS,
    duration: DURATION,
  });
  if (one.non2xx) throw new Error(`${label}: failed requests`);
  if (!admin)
    return { p50: one.p50, rps: one.rps, service: Math.round((processCpuMicros(svc.pid) - ownBefore) / one.total) };
  const after = await cpuOf(svc);
  return {
    p50: one.p50,
    rps: one.rps,
    service: Math.round((after.service - before.service) / one.total),
    database: Math.round(backendDelta(before, after) / one.total),
  };
}

async function latencies(size) {
  console.log(
    `\n${ENGINE}: ${size} assets, query at verbosity 1, limit 100, ${QUERY_CONNECTIONS} connection(s) (p50 ms per round, median)`,
  );
  if (!baseline) {
    console.log('| assets | shape | total | p50 ms | rounds | CPU µs/request service + database | req/s |');
    console.log('|---|---|---|---|---|---|---|');
  } else {
    console.log(`(baseline: ${BASELINE_DIR}, rounds alternated, the order swapped each round)`);
    console.log(
      '| assets | shape | total | p50 ms this / baseline | ratio | CPU µs/request service + database, this / baseline | ratio (sum) | p50 rounds (this / baseline) | req/s this / baseline |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
  }
  const cpu = (rs) =>
    admin
      ? `${median(rs.map((r) => r.service))} + ${median(rs.map((r) => r.database))}`
      : `${median(rs.map((r) => r.service))} (service, SQLite in it)`;
  const sum = (rs) => median(rs.map((r) => r.service + r.database));
  const rps = (rs) => Math.round(median(rs.map((r) => r.rps)));
  for (const [label, body] of Object.entries(SHAPES)) {
    const answer = await post(body);
    const lat = [];
    const base = [];
    for (let r = 0; r < ROUNDS; r++) {
      if (baseline && r % 2 === 1) base.push(await p50(baseline, label, body));
      lat.push(await p50(service, label, body));
      if (baseline && r % 2 === 0) base.push(await p50(baseline, label, body));
    }
    const ms = (rs) => median(rs.map((r) => r.p50));
    if (!baseline)
      console.log(
        `| ${size} | ${label} | ${answer.total} | ${ms(lat)} | ${lat.map((r) => r.p50).join(', ')} | ${cpu(lat)} | ${rps(lat)} |`,
      );
    else
      console.log(
        `| ${size} | ${label} | ${answer.total} | ${ms(lat)} / ${ms(base)} | ${(ms(lat) / ms(base)).toFixed(2)} | ${cpu(lat)} / ${cpu(base)} | ${(sum(lat) / sum(base)).toFixed(2)} | ${lat.map((r) => r.p50).join(', ')} / ${base.map((r) => r.p50).join(', ')} | ${rps(lat)} / ${rps(base)} |`,
      );
  }
}

async function loadAssets() {
  await post({ context: 'Template', method: 'create', parameters: { template: TEMPLATE } });
  const creates = await createAssets(0, ASSETS);
  console.log(`\n${ENGINE}: created ${ASSETS} assets, ${Math.round(creates)} assets/s (batches of 100, 4 in flight)`);
  const updates = await run(ASSETS * (VERSIONS - 1), 50, (j) => {
    const i = j % ASSETS;
    const v = 1 + Math.floor(j / ASSETS);
    return post({
      context: 'Asset',
      method: 'update',
      parameters: { asset: { id: i + 1, attributes: attributes(i, v) }, versionComment: `v${v}` },
    });
  });
  console.log(
    `${ENGINE}: ${ASSETS * (VERSIONS - 1)} updates as single calls (50 in flight): ${Math.round(updates)} new versions/s`,
  );
}

async function getAgainstBare() {
  const getBody = JSON.stringify({
    context: 'Asset',
    method: 'get',
    parameters: { customId: `m-${Math.floor(ASSETS / 2)}`, templateCustomId: 'machine' },
  });
  const gotten = await post(JSON.parse(getBody));
  const base = await startBaseline(gotten);
  try {
    const results = await compare(
      {
        'bare route (same asset JSON)': {
          url: `${base.url}/x`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: getBody,
        },
        'Asset get ACTIVE by customId': { url, method: 'POST', headers: HEADERS, body: getBody },
      },
      { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS },
    );
    printTable(
      `${ENGINE}, ${ASSETS} assets x ${VERSIONS} versions, get (${CONNECTIONS} connections, ${ROUNDS} rounds x ${DURATION} s)`,
      results,
      'bare route (same asset JSON)',
    );
  } finally {
    await base.close();
  }
}

try {
  if (!DB_URL) await loadAssets();
  if (GET) await getAgainstBare();
  await latencies(ASSETS);
  if (MORE) {
    const rate = await createAssets(ASSETS, MORE);
    console.log(`\n${ENGINE}: grew to ${MORE} assets (${Math.round(rate)} assets/s), queried right after`);
    await latencies(MORE);
  }
} finally {
  await pool.close();
  await service.close();
  await baseline?.close();
  await admin?.end();
  rmSync(root, { recursive: true, force: true });
  if (process.env.KEEP_DB === '1' && benchDb) console.log(`\nkept the database: ${benchDb.url}`);
  else await benchDb?.drop();
}
