// SQLite creates with and without the writer thread (database.sqliteWriterThread), alternated round by round: the
// create rate of a load through the API, and meanwhile the latency of item reads made one at a time by a process of
// their own (what every other request of the service waits while the main thread is inside SQLite: the batches'
// commits and the WAL checkpoints they trigger).
// Usage: npm run build && node bench/storage-create-stalls.mjs
// Env:   N (creates a round, 20000), LOAD_CONNECTIONS (50; e.g. 150), ROUNDS (3).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { searchItem } from './search-item.mjs';
import { freePort, median, startService } from './lib.mjs';

const N = Number(process.env.N ?? 20000);
const LOAD_CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const KEY = 'k-stalls-writer-0123456789';

/** Reads one URL one request at a time until stdin closes; prints the latencies' p50, p99 and largest (ms). */
const PROBE = `
const url = process.argv[1], key = process.argv[2];
const lat = [];
let running = true;
process.stdin.on('end', () => (running = false));
process.stdin.resume();
(async () => {
  while (running) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { 'x-apikey': key } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error('probe: ' + res.status);
    lat.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 2));
  }
  lat.sort((a, b) => a - b);
  const at = (q) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))];
  console.log(JSON.stringify({ n: lat.length, p50: at(0.5), p99: at(0.99), max: lat[lat.length - 1] }));
})();
`;

async function round(thread) {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-stalls-'));
  const configFile = join(root, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      database: { sqliteWriterThread: thread },
      tenants: [{ name: 'bench', apiKeys: [{ name: 'writer', key: KEY, roles: ['writer', 'everyone'] }] }],
    }),
  );
  const service = await startService({ port: await freePort(), configFile });
  try {
    const post = (pool, i) =>
      pool.request({
        path: '/cxf/svc-core/storage/store/stalls',
        method: 'POST',
        headers: { 'x-apikey': KEY, 'content-type': 'application/json' },
        body: JSON.stringify(searchItem(i)),
      });
    const pool = new Pool(service.url, { connections: LOAD_CONNECTIONS, pipelining: 1 });
    const first = await post(pool, 0);
    const { id } = await first.body.json();
    const probe = spawn(
      process.execPath,
      ['-e', PROBE, `${service.url}/cxf/svc-core/storage/store/stalls/${id}`, KEY],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    probe.stdout.on('data', (d) => (out += d));
    let next = 1;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: LOAD_CONNECTIONS }, async () => {
        while (next <= N) {
          const res = await post(pool, next++);
          const text = await res.body.text();
          if (res.statusCode !== 200) throw new Error(`create: ${res.statusCode} ${text}`);
        }
      }),
    );
    const rate = N / ((performance.now() - t0) / 1000);
    const exited = probe.exitCode !== null ? Promise.resolve() : new Promise((r) => probe.once('exit', r));
    probe.stdin.end();
    await exited;
    await pool.close();
    return { rate, ...JSON.parse(out) };
  } finally {
    await service.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const results = { true: [], false: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const thread of [true, false]) {
    const one = await round(thread);
    results[thread].push(one);
    console.log(
      `round ${r + 1}, writer thread ${thread ? 'on' : 'off'}: ${Math.round(one.rate)} creates/s; item read p50 ${one.p50.toFixed(1)} ms, p99 ${one.p99.toFixed(1)} ms, max ${one.max.toFixed(0)} ms (${one.n} reads)`,
    );
  }
}
console.log(`\nSQLite, ${N} creates a round, ${LOAD_CONNECTIONS} connections, medians of ${ROUNDS} rounds`);
console.log('| writer thread | creates/s | item read p50 ms | p99 ms | max ms |');
console.log('|---|---|---|---|---|');
for (const thread of [true, false]) {
  const rs = results[thread];
  const m = (k) => median(rs.map((x) => x[k]));
  console.log(
    `| ${thread ? 'on' : 'off'} | ${Math.round(m('rate'))} | ${m('p50').toFixed(1)} | ${m('p99').toFixed(1)} | ${m('max').toFixed(0)} |`,
  );
}
