// Issue 4: the Storage API under load, against a bare Fastify route in the same run.
// Usage: npm run build && node bench/storage.mjs
// Env:   ENGINE=sqlite|postgres (default sqlite); PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres;
//        the bench creates its own database there and drops it afterwards);
//        SIZES=10000,100000,1000000 (store sizes for the list scenario; the read/create comparison runs at 100000
//        or at the largest size below it); ROUNDS (3), DURATION (5 s), CONNECTIONS (50);
//        SCENARIOS=read,create,list (default all); SQLITE_CACHE_MIB (the service's database.sqliteCacheMiB);
//        BASELINE_IN_PROCESS=1 runs the bare route inside this load
//        generator process (as bench/lib.mjs did before it moved the baseline into its own process).
// Seeding: directly through SQL into the service's database while the service is stopped (SQLite file in its
// data dir, or the PostgreSQL database), in exactly the shape the repository writes: one storage_items row and
// two storage_item_access rows ('r' and 'w', `role:role-<k>`) per item; restrictions spread over 50 roles.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { compare, load, median, printTable, startBaseline, startService, createBenchDatabase } from './lib.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const DURATION = Number(process.env.DURATION ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const SIZES = (process.env.SIZES ?? '10000,100000,1000000')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const baselineOptions = { inProcess: process.env.BASELINE_IN_PROCESS === '1' };
const SCENARIOS = new Set((process.env.SCENARIOS ?? 'read,create,list').split(','));
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROLES = 50;
const STATUSES = ['open', 'closed', 'pending', 'done'];
const READER_KEY = 'k-bench-reader-0123456789';
const WRITER_KEY = 'k-bench-writer-0123456789';
const STORE = 'bench';

/** A port nobody listens on right now (other engineers run benchmarks on this machine too). */
const PORT = await new Promise((resolve) => {
  const srv = createServer().listen(0, '127.0.0.1', () => {
    const { port } = srv.address();
    srv.close(() => resolve(port));
  });
});

const root = mkdtempSync(join(tmpdir(), 'svc-bench-storage-'));
const dataDir = join(root, 'data');
const configFile = join(root, 'config.json');
writeFileSync(
  configFile,
  JSON.stringify({
    ...(process.env.SQLITE_CACHE_MIB ? { database: { sqliteCacheMiB: Number(process.env.SQLITE_CACHE_MIB) } } : {}),
    tenants: [
      {
        name: 'bench',
        apiKeys: [
          // The reader holds one of the 50 roles: it may read 2% of the items.
          { name: 'reader', key: READER_KEY, roles: ['role-7'] },
          { name: 'writer', key: WRITER_KEY, roles: ['role-0'] },
        ],
      },
    ],
  }),
);

/** The item as the service would store it: status cycles every 50 items, so a role sees all four statuses. */
const docOf = (i) => ({
  id: `item-${i}`,
  value: { n: i, status: STATUSES[Math.floor(i / ROLES) % 4], title: `item ${i}`, tags: ['bench', `t${i % 10}`] },
  favorite: false,
  readRestriction: { roles: [`role-${i % ROLES}`] },
  writeRestriction: { roles: [`role-${i % ROLES}`] },
  customFields: {},
});

// ---- database plumbing per engine -------------------------------------------------------------------------

const benchDb = ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_storage') : undefined;
const pgUrl = benchDb?.url;
const serviceEnv = ENGINE === 'postgres' ? { DATABASE_URL: pgUrl } : { SVC_DATA_DIR: dataDir };

async function seedTo(target, have) {
  if (target <= have) return;
  const now = Date.now() - target;
  const t0 = performance.now();
  if (ENGINE === 'sqlite') {
    const db = new SQLite(join(dataDir, 'svc.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    const tenant = db.prepare(`select id from tenants where name = 'bench'`).get().id;
    db.prepare(
      `insert or ignore into storage_stores (tenant_id, store_id, index_name, created_on, created_by) values (?, ?, ?, ?, 'seed')`,
    ).run(tenant, STORE, `svc-store-${STORE}`, now);
    const item = db.prepare(
      `insert into storage_items (tenant_id, store_id, item_id, doc, created_on, created_by, updated_on, updated_by) values (?, ?, ?, ?, ?, 'seed', ?, 'seed')`,
    );
    const access = db.prepare(
      `insert into storage_item_access (tenant_id, store_id, mode, grantee, item_seq) values (?, ?, ?, ?, ?)`,
    );
    const batch = db.transaction((from, to) => {
      for (let i = from; i < to; i++) {
        const seq = item.run(tenant, STORE, `item-${i}`, JSON.stringify(docOf(i)), now + i, now + i).lastInsertRowid;
        access.run(tenant, STORE, 'r', `role:role-${i % ROLES}`, seq);
        access.run(tenant, STORE, 'w', `role:role-${i % ROLES}`, seq);
      }
    });
    for (let from = have; from < target; from += 50_000) batch(from, Math.min(target, from + 50_000));
    db.exec('analyze');
    db.close();
  } else {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    const tenant = (await c.query(`select id from tenants where name = 'bench'`)).rows[0].id;
    await c.query(
      `insert into storage_stores (tenant_id, store_id, index_name, created_on, created_by) values ($1, $2, $3, $4, 'seed') on conflict do nothing`,
      [tenant, STORE, `svc-store-${STORE}`, now],
    );
    for (let from = have; from < target; from += 100_000) {
      const to = Math.min(target, from + 100_000) - 1;
      // Same document shape as docOf(), built in SQL.
      await c.query(
        `with ins as (
           insert into storage_items (tenant_id, store_id, item_id, doc, created_on, created_by, updated_on, updated_by)
           select $1, $2, 'item-' || g,
                  jsonb_build_object('id', 'item-' || g,
                    'value', jsonb_build_object('n', g, 'status', (array['open','closed','pending','done'])[(g / ${ROLES}) % 4 + 1],
                                                'title', 'item ' || g, 'tags', jsonb_build_array('bench', 't' || (g % 10))),
                    'favorite', false,
                    'readRestriction', jsonb_build_object('roles', jsonb_build_array('role-' || (g % ${ROLES}))),
                    'writeRestriction', jsonb_build_object('roles', jsonb_build_array('role-' || (g % ${ROLES}))),
                    'customFields', '{}'::jsonb),
                  $3::bigint + g, 'seed', $3::bigint + g, 'seed'
           from generate_series($4::int, $5::int) g
           order by g
           returning seq, tenant_id, store_id, item_id)
         insert into storage_item_access (tenant_id, store_id, mode, grantee, item_seq)
         select ins.tenant_id, ins.store_id, m.mode, 'role:role-' || (substring(ins.item_id from 6)::int % ${ROLES}), ins.seq
         from ins cross join (values ('r'), ('w')) m(mode)`,
        [tenant, STORE, now, from, to],
      );
    }
    await c.query('vacuum analyze storage_items');
    await c.query('vacuum analyze storage_item_access');
    await c.end();
  }
  console.log(`seeded ${have} -> ${target} items in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

// ---- scenarios --------------------------------------------------------------------------------------------

const filter = JSON.stringify([{ property: 'value.status', operator: 'eq', value: 'open' }]);
const listUrl = (base, params) => `${base}/cxf/svc-core/storage/store/${STORE}?${new URLSearchParams(params)}`;
const reader = { 'x-apikey': READER_KEY };

/** Latency of one list request at a time (the request's own cost, no queueing), plus throughput at 10 connections. */
async function listScenario(service, size) {
  const rows = [];
  for (const [label, params] of [
    ['list, restriction only, limit=100', { limit: '100' }],
    ['list, filter value.status=open + restriction, limit=100', { filter, limit: '100' }],
    ['list, filter + restriction + sort value.n DESC, limit=100', { filter, sort: 'value.n|DESC', limit: '100' }],
  ]) {
    const url = listUrl(service.url, params);
    const check = await (await fetch(url, { headers: reader })).json();
    if (!Array.isArray(check.items)) throw new Error(`${label}: ${JSON.stringify(check).slice(0, 300)}`);
    const lat = [];
    const rps = [];
    for (let r = 0; r < ROUNDS; r++) {
      const one = await load({ url, headers: reader, connections: 1, duration: DURATION });
      const ten = await load({ url, headers: reader, connections: 10, duration: DURATION });
      if (one.non2xx || ten.non2xx) throw new Error(`${label}: failed requests`);
      lat.push(one.p50);
      rps.push(ten.rps);
    }
    rows.push({ size, label, total: check.total, items: check.items.length, p50: median(lat), rps: median(rps), lat });
  }
  return rows;
}

async function readAndCreate(service) {
  const itemId = 'item-7'; // readable by role-7
  const res = await fetch(`${service.url}/cxf/svc-core/storage/store/${STORE}/${itemId}`, { headers: reader });
  if (res.status !== 200) throw new Error(`read: ${res.status}`);
  const item = await res.json();
  const createBody = JSON.stringify({ ...docOf(1), id: undefined });
  const baseRead = await startBaseline(item, 0, baselineOptions);
  const baseCreate = await startBaseline({ id: '3b0c4f47-0c36-4bd8-9a53-7f1f2b38c0de' }, 0, baselineOptions);
  try {
    const scenarios = {};
    if (SCENARIOS.has('read')) {
      scenarios['bare route GET (item JSON)'] = { url: `${baseRead.url}/x` };
      scenarios['GET item by id (X-APIKey)'] = {
        url: `${service.url}/cxf/svc-core/storage/store/${STORE}/${itemId}`,
        headers: reader,
      };
      // The platform's floor for an authenticated request (API key, no storage SQL), for reference.
      scenarios['GET .../authentication/principal (X-APIKey)'] = {
        url: `${service.url}/cxf/svc-core/authentication/principal`,
        headers: reader,
      };
    }
    if (SCENARIOS.has('create')) {
      scenarios['bare route POST (id JSON)'] = {
        url: `${baseCreate.url}/x`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: createBody,
      };
      scenarios['POST create item (X-APIKey)'] = {
        url: `${service.url}/cxf/svc-core/storage/store/bench-create`,
        method: 'POST',
        headers: { 'x-apikey': WRITER_KEY, 'content-type': 'application/json' },
        body: createBody,
      };
    }
    return await compare(scenarios, { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS });
  } finally {
    await baseRead.close();
    await baseCreate.close();
  }
}

// ---- run --------------------------------------------------------------------------------------------------

const engineName = ENGINE === 'postgres' ? 'PostgreSQL' : 'SQLite';
try {
  // First start creates the schema and provisions the tenant and keys; seeding follows while it is stopped.
  await (await startService({ port: PORT, configFile, env: serviceEnv })).close();
  const readSize = SIZES.filter((s) => s <= 100_000).pop() ?? SIZES[0];
  let have = 0;
  const listRows = [];
  for (const size of SIZES) {
    await seedTo(size, have);
    have = size;
    const service = await startService({ port: PORT, configFile, env: serviceEnv });
    try {
      if (size === readSize && (SCENARIOS.has('read') || SCENARIOS.has('create'))) {
        const results = await readAndCreate(service);
        const entries = Object.entries(results);
        const title = `${engineName}, store of ${size} items, ${CONNECTIONS} connections, ${ROUNDS} rounds x ${DURATION} s, baseline ${baselineOptions.inProcess ? 'in the load generator' : 'in its own process'}`;
        const reads = entries.filter(([k]) => k.startsWith('bare route GET') || k.startsWith('GET'));
        const creates = entries.filter(([k]) => k.startsWith('bare route POST') || k.startsWith('POST'));
        if (reads.length) printTable(title, Object.fromEntries(reads), reads[0][0]);
        if (creates.length) printTable(title, Object.fromEntries(creates), creates[0][0]);
      }
      if (SCENARIOS.has('list')) listRows.push(...(await listScenario(service, size)));
    } finally {
      await service.close();
    }
  }
  if (listRows.length) {
    console.log(
      `\n${engineName}: list reads by a key holding 1 of ${ROLES} roles (p50 at 1 connection; req/s at 10 connections; medians of ${ROUNDS} x ${DURATION} s)`,
    );
    console.log('| items in store | scenario | total | page | p50 ms | req/s | p50 per round |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of listRows)
      console.log(
        `| ${r.size} | ${r.label} | ${r.total} | ${r.items} | ${r.p50} | ${Math.round(r.rps)} | ${r.lat.join(', ')} |`,
      );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
  await benchDb?.drop();
}
