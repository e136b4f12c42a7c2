// Issue 10: the flow proxy against the same upstream called directly, same run.
// Usage: npm run build && node bench/flow.mjs
// Env:   ROUNDS (3), DURATION (5 s), CONNECTIONS (50), BIG_MB (100).
// The upstream runs in its own process (bench/flow-upstream.mjs). Throughput: a small JSON GET through the proxy
// (API key) vs directly. Memory: BIG_MB uploaded and downloaded through the proxy while the service's RSS is sampled.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { compare, printTable, ROOT, startService, freePort } from './lib.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const DURATION = Number(process.env.DURATION ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const BIG = Number(process.env.BIG_MB ?? 100) * 1024 * 1024;
const KEY = 'k-bench-flow-0123456789';

const upstreamProcess = spawn(process.execPath, [join(ROOT, 'bench/flow-upstream.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
const upstreamPort = await new Promise((resolve) => upstreamProcess.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
const upstream = `http://127.0.0.1:${upstreamPort}`;

const root = mkdtempSync(join(tmpdir(), 'svc-bench-flow-'));
const configFile = join(root, 'config.json');
writeFileSync(
  configFile,
  JSON.stringify({ tenants: [{ name: 'bench', apiKeys: [{ name: 'caller', key: KEY }] }], flow: { instances: [{ id: 'engine', url: `${upstream}/base` }] } }),
);
const service = await startService({ port: await freePort(), configFile });

const rssOf = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

async function measureRss(work) {
  const start = rssOf(service.pid);
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(service.pid))), 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { start, peak };
}

function* chunks(size) {
  const block = Buffer.alloc(64 * 1024, 3);
  for (let sent = 0; sent < size; sent += block.length) yield sent + block.length <= size ? block : block.subarray(0, size - sent);
}

try {
  const proxied = `${service.url}/cxf/svc-flow/flow/engine/tasks/1`;
  const results = await compare(
    {
      'direct to the upstream (GET small JSON)': { url: `${upstream}/base/tasks/1` },
      'through the proxy (GET, X-APIKey)': { url: proxied, headers: { 'x-apikey': KEY } },
    },
    { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS },
  );
  printTable(`Flow proxy vs direct, ${CONNECTIONS} connections, ${ROUNDS} rounds x ${DURATION} s`, results, 'direct to the upstream (GET small JSON)');
  const [direct, proxy] = Object.values(results);
  console.log(`added median latency: ${(proxy.p50 - direct.p50).toFixed(2)} ms (p50 ${direct.p50} -> ${proxy.p50} ms; autocannon reports whole ms)`);

  // One connection, sequential requests: the added latency in finer grain.
  const timeOne = async (url, headers) => {
    const times = [];
    for (let i = 0; i < 2000; i++) {
      const t0 = performance.now();
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  };
  const d1 = await timeOne(`${upstream}/base/tasks/1`, {});
  const p1 = await timeOne(proxied, { 'x-apikey': KEY });
  console.log(`one connection, 2000 sequential GETs: median ${d1.toFixed(3)} ms direct, ${p1.toFixed(3)} ms through the proxy (+${(p1 - d1).toFixed(3)} ms)`);

  const up = await measureRss(async () => {
    const res = await fetch(`${service.url}/cxf/svc-flow/flow/engine/upload`, {
      method: 'POST',
      headers: { 'x-apikey': KEY, 'content-type': 'application/octet-stream' },
      body: Readable.toWeb(Readable.from(chunks(BIG))),
      duplex: 'half',
    });
    const { length } = await res.json();
    if (length !== BIG) throw new Error(`upload arrived with ${length} bytes`);
  });
  const down = await measureRss(async () => {
    const res = await fetch(`${service.url}/cxf/svc-flow/flow/engine/large?size=${BIG}`, { headers: { 'x-apikey': KEY } });
    let got = 0;
    for await (const c of res.body) got += c.length;
    if (got !== BIG) throw new Error(`download arrived with ${got} bytes`);
  });
  const mb = (n) => (n / 1024 / 1024).toFixed(1);
  console.log(`${BIG / 1024 / 1024} MB upload: service RSS ${mb(up.start)} -> peak ${mb(up.peak)} MB (+${mb(up.peak - up.start)} MB)`);
  console.log(`${BIG / 1024 / 1024} MB download: service RSS ${mb(down.start)} -> peak ${mb(down.peak)} MB (+${mb(down.peak - down.start)} MB)`);
} finally {
  await service.close();
  upstreamProcess.kill('SIGTERM');
  rmSync(root, { recursive: true, force: true });
}
