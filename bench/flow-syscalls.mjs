// Issue 47 goal 5: the system calls a proxied call costs, each proxy side by side (kernel time is about half of each
// proxy's CPU in bench/flow.mjs). Each proxy is warmed up, then `strace -c -f -p <pid>` counts every thread's calls
// over a fixed number of requests; printed per request, by call.
// Usage: npm run build && node bench/flow-syscalls.mjs
// Env:   WARMUP (10000 requests before counting), REQUESTS (5000 counted), CONNECTIONS (50), BASELINE_DIR (another built
//        checkout: its service is counted too), FASTIFY=0 (leave out bench/flow-fastify-proxy.mjs).
// Under strace every call stops the process twice, so a process finds fewer requests at each wake-up than in a free
// run: epoll_wait figures are the traced run's, the reads and writes a request are the code's.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, ROOT, spawnBenchServer, startService, writeFlowBenchConfig } from './lib.mjs';

const WARMUP = Number(process.env.WARMUP ?? 10000);
const REQUESTS = Number(process.env.REQUESTS ?? 5000);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const KEY = 'k-bench-flow-0123456789';

const root = mkdtempSync(join(tmpdir(), 'svc-bench-flow-sc-'));
const children = [];
async function spawnServer(script, env = {}) {
  const server = await spawnBenchServer(script, env);
  children.push(server.child);
  return server;
}

const upstream = await spawnServer('bench/flow-upstream.mjs');
const configFile = join(root, 'config.json');
writeFlowBenchConfig(configFile, KEY, upstream.url, { database: { analyzeCheckSeconds: 0 } });
const services = [];
const proxies = {};
const bare = await spawnServer('bench/flow-bare-proxy.mjs', { UPSTREAM: upstream.url });
proxies.bare = { pid: bare.pid, url: `${bare.url}/tasks/1`, headers: {} };
if (process.env.FASTIFY !== '0') {
  const f = await spawnServer('bench/flow-fastify-proxy.mjs', { UPSTREAM: upstream.url });
  proxies.fastify = { pid: f.pid, url: `${f.url}/tasks/1`, headers: {} };
}
for (const [name, dir] of [
  ['service', ROOT],
  ['baseline', process.env.BASELINE_DIR],
]) {
  if (!dir) continue;
  const s = await startService({ port: await freePort(), configFile, main: join(dir, 'dist/main.js') });
  services.push(s);
  proxies[name] = { pid: s.pid, url: `${s.url}/cxf/svc-flow/flow/engine/tasks/1`, headers: { 'x-apikey': KEY } };
}

async function requests(url, headers, amount) {
  const r = await autocannon({ url, headers, connections: CONNECTIONS, amount, timeout: 60 });
  if (r.non2xx + r.errors + r.timeouts) throw new Error(`${r.non2xx + r.errors + r.timeouts} requests failed`);
  return r['2xx'];
}

/** strace's `-c` table: calls and errors by system call. */
function parse(text) {
  const calls = {};
  for (const line of text.split('\n')) {
    const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(\d*)\s*(\w+)$/.exec(line);
    if (m && m[3] !== 'total') calls[m[3]] = Number(m[1]);
  }
  return calls;
}

const counts = {};
try {
  for (const p of Object.values(proxies)) await requests(p.url, p.headers, WARMUP);
  for (const [name, p] of Object.entries(proxies)) {
    const file = join(root, `${name}.strace`);
    const strace = spawn('strace', ['-c', '-f', '-p', String(p.pid), '-o', file], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 1000));
    const answered = await requests(p.url, p.headers, REQUESTS);
    strace.kill('SIGINT');
    await new Promise((r) => strace.once('exit', r));
    const calls = parse(readFileSync(file, 'utf8'));
    counts[name] = Object.fromEntries(Object.entries(calls).map(([call, n]) => [call, n / answered]));
  }
} finally {
  for (const s of services) await s.close();
  for (const c of children) c.kill('SIGTERM');
  rmSync(root, { recursive: true, force: true });
}

const names = Object.keys(counts);
const all = [...new Set(names.flatMap((n) => Object.keys(counts[n])))].sort(
  (a, b) => (counts[names.at(-1)][b] ?? 0) - (counts[names.at(-1)][a] ?? 0),
);
console.log(`system calls a request (${REQUESTS} requests, ${CONNECTIONS} connections, all threads)`);
console.log(`| call | ${names.join(' | ')} |`);
console.log(`|---|${names.map(() => '---').join('|')}|`);
for (const call of all) console.log(`| ${call} | ${names.map((n) => (counts[n][call] ?? 0).toFixed(3)).join(' | ')} |`);
const total = (n) => Object.values(counts[n]).reduce((a, b) => a + b, 0);
console.log(`| total | ${names.map((n) => total(n).toFixed(2)).join(' | ')} |`);
