// Issue 12: data management assets. Loads ASSETS assets of one template through the API (creates in batches of 100,
// then VERSIONS - 1 updates per asset as single calls, 50 in flight: the update throughput), then measures get ACTIVE
// by customId against a bare route answering the same JSON (50 connections), and the p50 of queries with a filter and
// a sort at verbosity 1, limit 100, one connection. MORE grows the store afterwards (assets of one version each) and
// measures the queries again.
// Usage: npm run build && node bench/data-management-assets.mjs
// Env: ENGINE=sqlite|postgres; PG_ADMIN_URL; ASSETS (10000); VERSIONS (10); MORE (e.g. 100000: the size to grow to);
//      ROUNDS (3), DURATION (5 s), CONNECTIONS (50).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import {
  compare,
  createBenchDatabase,
  freePort,
  load,
  median,
  printTable,
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
const benchDb = ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_dma') : undefined;
const service = await startService({ port, configFile, env: benchDb ? { DATABASE_URL: benchDb.url } : {} });
const url = `${service.url}/engine/servlet/UploadServlet/api_protocol`;
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
const SHAPES = {
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
  'filter serial (one asset)': q(
    [{ property: 'attributes.dm:serial', operator: 'eq', value: `S-4242-${VERSIONS - 1}` }],
    [],
  ),
};

async function latencies(size) {
  console.log(
    `\n${ENGINE}: ${size} assets, query at verbosity 1, limit 100, one connection (p50 ms per round, median)`,
  );
  console.log('| assets | shape | total | p50 ms | rounds |');
  console.log('|---|---|---|---|---|');
  for (const [label, body] of Object.entries(SHAPES)) {
    const answer = await post(body);
    const lat = [];
    for (let r = 0; r < ROUNDS; r++) {
      const one = await load({
        url,
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify(body),
        connections: 1,
        duration: DURATION,
      });
      if (one.non2xx) throw new Error(`${label}: failed requests`);
      lat.push(one.p50);
    }
    console.log(`| ${size} | ${label} | ${answer.total} | ${median(lat)} | ${lat.join(', ')} |`);
  }
}

try {
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
  await latencies(ASSETS);
  if (MORE) {
    const rate = await createAssets(ASSETS, MORE);
    console.log(`\n${ENGINE}: grew to ${MORE} assets (${Math.round(rate)} assets/s), queried right after`);
    await latencies(MORE);
  }
} finally {
  await pool.close();
  await service.close();
  rmSync(root, { recursive: true, force: true });
  await benchDb?.drop();
}
