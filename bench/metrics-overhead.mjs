// Issue 45: what metrics cost. The session check and the item read on a service with metrics enabled against one with
// them off, both running, in the same run, rounds alternated, medians. Goal: enabled keeps at least 95% of the
// requests/s. The enabled service is scraped every second meanwhile, as a (busy) Prometheus would.
// Usage: npm run build && node bench/metrics-overhead.mjs
// Env: DATABASE_URL=postgres://... (each service gets a database of its own on that server); ROUNDS, DURATION,
// CONNECTIONS.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare, createBenchDatabase, freePort, printTable, startService } from './lib.mjs';

const rounds = Number(process.env.ROUNDS ?? 5);
const duration = Number(process.env.DURATION ?? 5);
const connections = Number(process.env.CONNECTIONS ?? 50);
const API_KEY = 'k-bench-metrics-0123456789';
const TOKEN = 'bench-metrics-token-0123456789';

const base = {
  tenants: [
    {
      name: 'bench',
      users: [{ loginName: 'bench', password: 'bench-password', roles: ['R1', 'OWNER'] }],
      apiKeys: [{ name: 'bench-key', key: API_KEY, roles: ['R1', 'OWNER'] }],
    },
  ],
};

async function start(metrics) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-metrics-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ ...base, metrics }));
  const database = process.env.DATABASE_URL
    ? await createBenchDatabase(process.env.DATABASE_URL, `svc_bench_metrics_${metrics.enabled ? 'on' : 'off'}`)
    : undefined;
  const service = await startService({
    port: await freePort(),
    configFile,
    env: database ? { DATABASE_URL: database.url } : {},
  });
  const login = await fetch(`${service.url}/cxf/svc-core/authentication`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'tenantname=bench&username=bench&password=bench-password',
  });
  const cookie = login.headers.get('set-cookie').split(';')[0];
  const put = await fetch(`${service.url}/cxf/svc-core/storage/store/bench/item-1`, {
    method: 'PUT',
    headers: { 'x-apikey': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({
      value: { title: 'an item', n: 1, tags: ['a', 'b'] },
      readRestriction: { roles: ['R1'] },
      writeRestriction: { roles: ['R1'] },
    }),
  });
  if (put.status !== 200) throw new Error(`item PUT: ${put.status} ${await put.text()}`);
  return {
    ...service,
    cookie,
    async close() {
      await service.close();
      await database?.drop();
    },
  };
}

const off = await start({ enabled: false });
const on = await start({ enabled: true, token: TOKEN });
let scrapes = 0;
const scraper = setInterval(() => {
  fetch(`${on.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
    .then((r) => r.text())
    .then(() => scrapes++)
    .catch(() => undefined);
}, 1000);
try {
  const session = (s) => ({ url: `${s.url}/cxf/svc-core/authentication`, headers: { cookie: s.cookie } });
  const item = (s) => ({ url: `${s.url}/cxf/svc-core/storage/store/bench/item-1`, headers: { 'x-apikey': API_KEY } });
  const results = await compare(
    {
      'session check, metrics off': session(off),
      'session check, metrics on': session(on),
      'item read, metrics off': item(off),
      'item read, metrics on': item(on),
    },
    { rounds, duration, connections },
  );
  const db = process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite';
  const pick = (...names) => Object.fromEntries(names.map((n) => [n, results[n]]));
  printTable(
    `Session check, metrics on vs off (${db}, ${connections} connections, ${rounds} rounds x ${duration}s)`,
    pick('session check, metrics off', 'session check, metrics on'),
    'session check, metrics off',
  );
  printTable(
    `Item read (X-APIKey), metrics on vs off (${db})`,
    pick('item read, metrics off', 'item read, metrics on'),
    'item read, metrics off',
  );
  for (const what of ['session check', 'item read']) {
    const ratio = results[`${what}, metrics on`].rps / results[`${what}, metrics off`].rps;
    console.log(`${what}: metrics on keeps ${(ratio * 100).toFixed(1)}% of the requests/s (goal: >= 95%)`);
  }
  console.log(`(${scrapes} scrapes of /metrics during the run)`);
} finally {
  clearInterval(scraper);
  await on.close();
  await off.close();
}
