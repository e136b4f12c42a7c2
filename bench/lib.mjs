// Shared benchmark plumbing: start the built service and a bare Fastify baseline, load them with
// autocannon in the same run, and report medians and ratios. Loopback only; every run is bounded.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A bare Fastify route that answers `body` as JSON: the baseline every figure is compared with. It runs in
 * its own process, as the service does; `{ inProcess: true }` runs it inside the load generator instead.
 */
export async function startBaseline(body, port = 0, { inProcess = false } = {}) {
  if (inProcess) {
    const app = Fastify({ logger: false });
    app.get('/*', async () => body);
    app.post('/*', async () => body);
    await app.listen({ host: '127.0.0.1', port });
    return { url: `http://127.0.0.1:${app.server.address().port}`, close: () => app.close() };
  }
  const text = JSON.stringify(body);
  const bodyFile =
    text.length > 64 * 1024 ? join(mkdtempSync(join(tmpdir(), 'svc-baseline-')), 'body.json') : undefined;
  if (bodyFile) writeFileSync(bodyFile, text);
  const child = spawn(process.execPath, [join(ROOT, 'bench/baseline-server.mjs')], {
    env: {
      ...process.env,
      ...(bodyFile ? { BASELINE_BODY_FILE: bodyFile } : { BASELINE_BODY: text }),
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const actualPort = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
  });
  return {
    url: `http://127.0.0.1:${actualPort}`,
    pid: child.pid,
    async close() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    },
  };
}

/**
 * Starts `node dist/main.js start` (or another build's `main`) with a config file and env; resolves once /health answers.
 * `env.DATABASE_URL` selects PostgreSQL; otherwise SQLite in a temp dir that is removed on close (unless `keepData`).
 */
export async function startService({
  port,
  configFile,
  env = {},
  main = join(ROOT, 'dist/main.js'),
  dataDir: given,
  keepData = false,
}) {
  // `dataDir` starts the service on an existing data directory (a kept SQLite store), which close() then leaves.
  const dataDir = given ?? mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const keep = keepData || given !== undefined;
  // BENCH_NODE_ARGS: extra node flags for the service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, main, 'start'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SVC_CONFIG: configFile ?? '',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error('service did not start within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: child.pid,
    async close() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      if (!keep) rmSync(dataDir, { recursive: true, force: true });
    },
    dataDir,
  };
}

/**
 * One autocannon run (`overallRate`: paced to that many requests/s in all); answers requests/s, latency percentiles
 * (ms) and the count of failed answers: non-2xx, or with `expect: 304` (a conditional GET whose tag holds) anything
 * but 304.
 */
export async function load({
  url,
  method = 'GET',
  headers = {},
  body,
  connections = 50,
  duration = 5,
  requests,
  overallRate,
  expect,
}) {
  const result = await autocannon({
    url,
    method,
    headers,
    body,
    connections,
    duration,
    pipelining: 1,
    requests,
    overallRate,
  });
  const unexpected =
    expect === undefined
      ? result.non2xx
      : result.requests.total - (result.statusCodeStats?.[String(expect)]?.count ?? 0);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: unexpected + result.errors + result.timeouts,
    total: result.requests.total,
  };
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Alternates the scenarios round by round (so drift on a shared machine hits all alike) and
 * answers the median requests/s and p50 of each. `probe` measures something around each run
 * (`before()`, then `after(state, run)`, which may answer a promise): its answers come back per scenario as `probes`.
 */
export async function compare(scenarios, { rounds = 3, duration = 5, connections = 50, probe } = {}) {
  const runs = Object.fromEntries(Object.keys(scenarios).map((k) => [k, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, opts] of Object.entries(scenarios)) {
      const state = probe?.before();
      const r = await load({ connections, duration, ...opts });
      if (r.non2xx > 0) throw new Error(`${name}: ${r.non2xx} failed requests in round ${round + 1}`);
      if (probe) r.probe = await probe.after(state, r);
      runs[name].push(r);
    }
  }
  return Object.fromEntries(
    Object.entries(runs).map(([name, rs]) => [
      name,
      {
        rps: median(rs.map((r) => r.rps)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        runs: rs.map((r) => Math.round(r.rps)),
        probes: rs.map((r) => r.probe),
      },
    ]),
  );
}

export function printTable(title, results, baselineName) {
  const base = results[baselineName]?.rps;
  console.log(`\n${title}`);
  console.log('| scenario | req/s (median) | p50 ms | p99 ms | vs baseline | runs (req/s) |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, r] of Object.entries(results)) {
    const ratio = base ? `${((r.rps / base) * 100).toFixed(0)}%` : '';
    console.log(`| ${name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${ratio} | ${r.runs.join(', ')} |`);
  }
}

/**
 * A temporary directory (`root`, removed by the caller) with a `config.json` of one tenant `bench` holding `apiKeys`,
 * and `extra` top-level settings beside it.
 */
export function writeBenchConfig(prefix, apiKeys, extra = {}) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const configFile = join(root, 'config.json');
  writeFileSync(configFile, JSON.stringify({ tenants: [{ name: 'bench', apiKeys }], ...extra }));
  return { root, configFile };
}

/**
 * The flow benchmarks' service configuration, written to `configFile`: tenant `bench` with one caller's API key `key`,
 * one engine instance `engine` at `<upstreamUrl>/base`, and `extra` top-level settings beside them.
 */
export function writeFlowBenchConfig(configFile, key, upstreamUrl, extra = {}) {
  writeFileSync(
    configFile,
    JSON.stringify({
      ...extra,
      tenants: [{ name: 'bench', apiKeys: [{ name: 'caller', key }] }],
      flow: { instances: [{ id: 'engine', url: `${upstreamUrl}/base` }] },
    }),
  );
}

/** One of the bench's own servers (bench/flow-upstream.mjs, ...) as a process; its first output line is its port. */
export async function spawnBenchServer(script, env = {}) {
  const child = spawn(process.execPath, [join(ROOT, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  return { child, pid: child.pid, url: `http://127.0.0.1:${port}` };
}

/**
 * A PostgreSQL database of the benchmark's own on the server of `adminUrl`: answers its URL and `drop()`.
 * `prefix` names it (`<prefix>_<pid>`), so concurrent benchmarks on a shared machine never meet.
 */
export async function createBenchDatabase(adminUrl, prefix) {
  const name = `${prefix}_${process.pid}`;
  const run = async (statement) => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(statement);
    } finally {
      await admin.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * User + system CPU so far, in µs, of a process or one of its threads (`/proc/<pid>/stat`, `/proc/<pid>/task/<tid>/stat`;
 * clock ticks of 10 ms). Linux only.
 */
export function cpuMicros(statFile) {
  const stat = readFileSync(statFile, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * CPU time so far, in µs, of all threads of a process, from the scheduler's own account (`/proc/<pid>/task/<tid>/schedstat`,
 * nanoseconds): finer than `cpuMicros`' 10 ms ticks, which a run of a few hundred requests on a busy machine needs.
 * Threads that ended are not counted. Linux only.
 */
export function processCpuMicros(pid) {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {} // the thread ended meanwhile
  }
  return ns / 1000;
}

/**
 * As processCpuMicros, split: the process's main thread (its tid is the pid: the event loop) and all its other threads
 * (V8's GC helpers and compiler, libuv's pool, workers), in µs. Answers `{ main, others }`.
 */
export function threadCpuMicros(pid) {
  let main = 0;
  let others = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      if (tid === String(pid)) main += ns;
      else others += ns;
    } catch {} // the thread ended meanwhile
  }
  return { main: main / 1000, others: others / 1000 };
}

/**
 * CPU so far (µs) of each thread of a process, by thread id (`main` for the main thread): node names its threads
 * alike, so the id is what tells a reader thread from a V8 helper.
 */
export function threadCpuByTid(pid) {
  const out = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      out[tid === String(pid) ? 'main' : tid] = ns / 1000;
    } catch {} // the thread ended meanwhile
  }
  return out;
}

/** A port nobody listens on right now (other engineers run benchmarks on this machine too). */
export function freePort() {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** A V8 CPU profile node's function as the profile reports print it: name, then file and line (short for ours). */
export function profileFunctionName(node) {
  const f = node.callFrame;
  if (!f.url) return f.functionName || '(anonymous)';
  const where = f.url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/');
  return `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
}
