// Issue 45: what metrics cost. The session check and the item read on a service with metrics enabled against one with
// them off, both running, in the same run, rounds alternated, medians. Goal: enabled keeps at least 95% of the
// requests/s. The enabled service is scraped every SCRAPE_MS (15,000: Prometheus's usual interval) meanwhile. Besides requests/s,
// the service process's CPU time per request (user + system, /proc/<pid>/stat): on a machine shared with other work,
// throughput follows the neighbours' load, CPU per request much less.
// Usage: npm run build && node bench/metrics-overhead.mjs
// Env: DATABASE_URL=postgres://... (each service gets a database of its own on that server); ROUNDS, DURATION,
// CONNECTIONS.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMicros, createBenchDatabase, freePort, load, median, startService } from './lib.mjs';

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

// In process: what the request hook adds per answered request (prom-client counter and histogram children, looked up
// by label set), timed alone; the floor under the difference the loaded services show.
{
  const { ServiceMetrics } = await import('../dist/platform/metrics/metrics-registry.js');
  const { Telemetry } = await import('../dist/platform/metrics/telemetry.js');
  const { SecurityCounters } = await import('../dist/platform/auth/throttle/index.js');
  const m = new ServiceMetrics({
    database: { load: () => ({}) },
    security: new SecurityCounters(),
    telemetry: new Telemetry(),
  });
  const routes = ['/cxf/svc-core/authentication', '/cxf/svc-core/storage/store/:storeId/:itemId'];
  const n = 1_000_000;
  const times = [];
  for (let round = 0; round < 5; round++) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < n; i++) m.observeRequest('GET', routes[i & 1], 200, 0.0004);
    const t = process.cpuUsage(t0);
    times.push(((t.user + t.system) * 1000) / n);
  }
  console.log(`request hook, in process: ${median(times).toFixed(0)} ns CPU per request (median of 5 x ${n})`);
}

const off = await start({ enabled: false });
const on = await start({ enabled: true, token: TOKEN });
let scrapes = 0;
const scraper = setInterval(
  () => {
    fetch(`${on.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
      .then((r) => r.text())
      .then(() => scrapes++)
      .catch(() => undefined);
  },
  Number(process.env.SCRAPE_MS ?? 15_000),
);
try {
  const session = (s) => ({ url: `${s.url}/cxf/svc-core/authentication`, headers: { cookie: s.cookie } });
  const item = (s) => ({ url: `${s.url}/cxf/svc-core/storage/store/bench/item-1`, headers: { 'x-apikey': API_KEY } });
  const scenarios = {
    'session check, metrics off': { service: off, ...session(off) },
    'session check, metrics on': { service: on, ...session(on) },
    'item read, metrics off': { service: off, ...item(off) },
    'item read, metrics on': { service: on, ...item(on) },
  };
  const runs = Object.fromEntries(Object.keys(scenarios).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, { service, ...target }] of Object.entries(scenarios)) {
      const stat = `/proc/${service.pid}/stat`;
      const cpuBefore = cpuMicros(stat);
      const r = await load({ ...target, connections, duration });
      const cpu = cpuMicros(stat) - cpuBefore;
      if (r.non2xx > 0) throw new Error(`${name}: ${r.non2xx} failed requests in round ${round + 1}`);
      runs[name].push({ rps: r.rps, p50: r.p50, p99: r.p99, cpuPerRequest: cpu / r.total });
    }
  }
  const results = Object.fromEntries(
    Object.entries(runs).map(([name, rs]) => [
      name,
      {
        rps: median(rs.map((r) => r.rps)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        cpu: median(rs.map((r) => r.cpuPerRequest)),
        runs: rs,
      },
    ]),
  );
  const db = process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite';
  console.log(`\nMetrics on vs off (${db}, ${connections} connections, ${rounds} rounds x ${duration}s, alternated)`);
  console.log('| scenario | req/s (median) | p50 ms | p99 ms | CPU us/request (median) | runs (req/s) |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, r] of Object.entries(results))
    console.log(
      `| ${name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.cpu.toFixed(1)} | ${r.runs.map((x) => Math.round(x.rps)).join(', ')} |`,
    );
  for (const what of ['session check', 'item read']) {
    const onR = results[`${what}, metrics on`];
    const offR = results[`${what}, metrics off`];
    console.log(
      `${what}: metrics on keeps ${((onR.rps / offR.rps) * 100).toFixed(1)}% of the requests/s, CPU per request ${((onR.cpu / offR.cpu) * 100).toFixed(1)}% of off (goal: cost <= 5%)`,
    );
  }
  console.log(`(${scrapes} scrapes of /metrics during the run)`);
} finally {
  clearInterval(scraper);
  await on.close();
  await off.close();
}
