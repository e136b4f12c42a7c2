// Issue 47 goal 1: where a create's CPU and allocation go in the service, per create. The service (a build's
// dist/main.js) gets WARMUP creates of the search benchmark's item through HTTP (50 connections), then N more under a V8
// CPU profile and a sampling heap profile that keeps what the collector freed (bench/profile-preload.cjs), and the
// scheduler's CPU of each of its threads around them. Prints the main thread's and the other threads' CPU a create,
// the profile's self and inclusive time by function, and the bytes allocated a create by function.
// Usage: npm run build && node bench/storage-create-profile.mjs
// Env:   ENGINE=sqlite|postgres; PG_ADMIN_URL; MAIN (another build's dist/main.js); N (4000); WARMUP (3000);
//        CONNECTIONS (50); TOP (40 rows a table); PROFILE=0: the CPU by thread only (no profiles: their overhead out);
//        MATCH (a regular expression: the inclusive table keeps only functions whose name or file matches).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { searchItem } from './search-item.mjs';
import {
  ROOT,
  createBenchDatabase,
  freePort,
  profileFunctionName,
  startService,
  threadCpuMicros,
  writeBenchConfig,
} from './lib.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const N = Number(process.env.N ?? 4000);
const WARMUP = Number(process.env.WARMUP ?? 3000);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const TOP = Number(process.env.TOP ?? 40);
const CALLGRIND = process.env.CALLGRIND === '1';
const PROFILE = !CALLGRIND && process.env.PROFILE !== '0';
const MATCH = process.env.MATCH ? new RegExp(process.env.MATCH) : undefined;
const KEY = 'k-createprof-writer-0123456789';

const { root, configFile } = writeBenchConfig('svc-bench-createprof-', [
  { name: 'writer', key: KEY, roles: ['writer', 'everyone'] },
]);
const out = join(root, 'profile');
const db = ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_createprof') : undefined;
if (PROFILE)
  process.env.BENCH_NODE_ARGS = `${process.env.BENCH_NODE_ARGS ?? ''} --require ${join(ROOT, 'bench/profile-preload.cjs')}`;
const serviceEnv = { ...(db ? { DATABASE_URL: db.url } : {}), PROFILE_OUT: out };
const service = CALLGRIND
  ? await startUnderCallgrind(process.env.MAIN ?? join(ROOT, 'dist/main.js'), serviceEnv)
  : await startService({
      port: await freePort(),
      configFile,
      env: serviceEnv,
      ...(process.env.MAIN ? { main: process.env.MAIN } : {}),
    });

/** The service under valgrind's callgrind, counting nothing until switched on (`callgrind_control -i on`). */
async function startUnderCallgrind(main, env) {
  const port = await freePort();
  mkdirSync(join(root, 'data'));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}.callgrind`,
      process.execPath,
      main,
      'start',
    ],
    {
      env: {
        ...process.env,
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        SVC_DATA_DIR: join(root, 'data'),
        LOG_LEVEL: 'warn',
        SVC_CONFIG: configFile,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 300_000; ; ) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error('service did not start under valgrind within 300 s');
    await new Promise((r) => setTimeout(r, 500));
  }
  const exited = new Promise((r) => child.once('exit', r));
  return {
    url,
    pid: child.pid,
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * A command to the service's callgrind. With the service's HOST: valgrind names its control pipe after $HOST (and
 * $USER), so the command must come with the same.
 */
function callgrindControl(...args) {
  execFileSync('callgrind_control', [...args, String(service.pid)], {
    stdio: 'ignore',
    env: { ...process.env, HOST: '127.0.0.1' },
  });
}

/** Instructions counted by callgrind so far (its dump's summary), all threads. */
function callgrindInstructions() {
  callgrindControl('-d');
  let total = 0;
  for (const f of readdirSync(root).filter((name) => name.startsWith('profile.callgrind'))) {
    const m = /^totals: (\d+)/m.exec(readFileSync(join(root, f), 'utf8'));
    if (m) total += Number(m[1]);
  }
  return total;
}

async function creates(from, to) {
  const pool = new Pool(service.url, { connections: CONNECTIONS, pipelining: 1 });
  let next = from;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < to) {
        const i = next++;
        const res = await pool.request({
          path: '/cxf/svc-core/storage/store/creates',
          method: 'POST',
          headers: { 'x-apikey': KEY, 'content-type': 'application/json' },
          body: JSON.stringify(searchItem(i)),
        });
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`create ${i}: ${res.statusCode} ${text}`);
      }
    }),
  );
  await pool.close();
}

/** CPU (µs) of the database's server processes (PostgreSQL), by pid: the service's pool stays connected throughout. */
async function serverCpu() {
  const cpu = new Map();
  if (!monitor) return cpu;
  const { rows } = await monitor.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  for (const { pid } of rows) {
    try {
      cpu.set(pid, Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000);
    } catch {} // ended meanwhile
  }
  return cpu;
}

const monitor = db ? new pg.Client({ connectionString: db.url }) : undefined;
try {
  await monitor?.connect();
  await creates(0, WARMUP);
  if (PROFILE) process.kill(service.pid, 'SIGUSR2');
  if (CALLGRIND) callgrindControl('-i', 'on');
  const serverBefore = await serverCpu();
  const before = threadCpuMicros(service.pid);
  const t0 = performance.now();
  await creates(WARMUP, WARMUP + N);
  const seconds = (performance.now() - t0) / 1000;
  const after = threadCpuMicros(service.pid);
  let server = 0;
  for (const [pid, us] of await serverCpu()) if (serverBefore.has(pid)) server += us - serverBefore.get(pid);
  if (PROFILE) process.kill(service.pid, 'SIGUSR2');
  if (CALLGRIND) {
    callgrindControl('-i', 'off');
    console.log(`callgrind: ${Math.round(callgrindInstructions() / N)} instructions a create (all threads)`);
  }
  const main = after.main - before.main;
  const others = after.others - before.others;
  console.log(
    `${ENGINE}: ${N} creates after ${WARMUP}, ${Math.round(N / seconds)}/s; CPU a create: main thread ${Math.round(main / N)} µs, other threads ${Math.round(others / N)} µs${monitor ? `, server ${Math.round(server / N)} µs` : ''}`,
  );
  if (PROFILE) {
    for (let i = 0; i < 100 && !(existsSync(`${out}.cpuprofile`) && existsSync(`${out}.heapprofile`)); i++)
      await new Promise((r) => setTimeout(r, 100));
    cpuTables(JSON.parse(readFileSync(`${out}.cpuprofile`, 'utf8')));
    heapTables(JSON.parse(readFileSync(`${out}.heapprofile`, 'utf8')));
  }
} finally {
  await monitor?.end();
  await service.close();
  await db?.drop();
  rmSync(root, { recursive: true, force: true });
}

function printTop(title, map, total, unit) {
  console.log(`\n${title}`);
  for (const [name, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${unit(v).padStart(7)}  ${name}`);
}

/** Self and inclusive time by function a create (each function counted once a sample, whatever its recursion). */
function cpuTables(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const inclusive = new Map();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(id);
    if (node.callFrame.functionName === '(idle)') return;
    busy += us;
    const name = profileFunctionName(node);
    self.set(name, (self.get(name) ?? 0) + us);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const n = profileFunctionName(byId.get(at));
      if (seen.has(n)) continue;
      seen.add(n);
      if (!MATCH || MATCH.test(n)) inclusive.set(n, (inclusive.get(n) ?? 0) + us);
    }
  });
  const perCreate = (us) => `${(us / N).toFixed(1)} µs`;
  console.log(`\nmain thread busy in the profile: ${Math.round(busy / N)} µs a create`);
  printTop('self time by function', self, busy, perCreate);
  printTop('inclusive time by function', inclusive, busy, perCreate);
}

/** Bytes allocated a create by function: self, and inclusive (each function once along a stack). */
function heapTables({ head }) {
  const self = new Map();
  const inclusive = new Map();
  let total = 0;
  const walk = (node, stack) => {
    const name = profileFunctionName(node);
    const here = stack.includes(name) ? stack : [...stack, name];
    if (node.selfSize) {
      total += node.selfSize;
      self.set(name, (self.get(name) ?? 0) + node.selfSize);
      for (const n of here) if (!MATCH || MATCH.test(n)) inclusive.set(n, (inclusive.get(n) ?? 0) + node.selfSize);
    }
    for (const c of node.children ?? []) walk(c, here);
  };
  walk(head, []);
  const perCreate = (bytes) => `${Math.round(bytes / N)} B`;
  console.log(`\nallocated (sampled, freed objects included): ${Math.round(total / N)} bytes a create`);
  printTop('allocation by function, self', self, total, perCreate);
  printTop('allocation by function, inclusive', inclusive, total, perCreate);
}
