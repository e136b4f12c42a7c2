// Issue 14: create throughput of the storage API against another build of the service (by default the last build
// before the value index, whose ~4,500 creates/s the issue's "at least 3,000" was written against), the two builds
// alternated round by round on the same machine, and the CPU each spends per create: the machine is shared and its
// speed drifts by half within an hour, so only the ratio of a round's pair says how much the index costs.
// Usage: npm run build && node bench/storage-creates.mjs
// Env:   ENGINE=sqlite|postgres (default sqlite); PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres);
//        N (creates a round, 20000); CONNECTIONS (50); ROUNDS (5); BASELINE_REV (a git revision, default 78f264f~1:
//        checked out in a worktree under the system's temp dir and built there once, kept for the next run; remove it
//        with `git worktree remove <path>`), or BASELINE_DIR (a checkout that is built already).
//        WARMUP (0): creates sent to each server, the bare route too, before the N measured (the JIT's compiling of a
//        fresh process is then out of the figure, and the store holds WARMUP items when the measured creates start).
//        BARE=0 leaves out the bare route. CONFIG (JSON): settings added to both builds' configuration. THREADS=1: the CPU
//        a create of the service's threads by name.
//        GROW=10000,50000,100000: instead of the rounds, each build's store grows to the largest size (one store a
//        build, the builds one after the other, ROUNDS times), and the last SEGMENT creates (5000) before each size are
//        measured: creates/s and CPU per create there, on PostgreSQL with the server processes' CPU (does a create's
//        cost grow with the store?).
// Prints each round's creates/s of both builds (which goes first alternates) and their ratio, the medians, and the CPU
// time per create of the service's threads (main thread, the others together: SQLite's writer thread, V8's helpers)
// and of the loader.
// Each round also loads a bare Fastify route (bench/baseline-server.mjs, a process of its own) answering a create's
// JSON (`{"id": <a UUID>}`) to the same POSTs, so that the creates read as a ratio to it (issue 47 goal 1: >= 0.3).
// On PostgreSQL the server's CPU (the backends of the bench's database, sampled every 100 ms) is printed too.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { searchItem } from './search-item.mjs';
import {
  ROOT,
  cpuMicros,
  createBenchDatabase,
  freePort,
  median,
  startBaseline,
  startService,
  writeBenchConfig,
} from './lib.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const N = Number(process.env.N ?? 20000);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const BASELINE_REV = process.env.BASELINE_REV ?? '78f264f~1';
const KEY = 'k-creates-writer-0123456789';
const BARE = process.env.BARE !== '0';
/** WARMUP=2000: creates sent to each server (the builds and the bare route alike) before its N measured ones. */
const WARMUP = Number(process.env.WARMUP ?? 0);
/** CONFIG='{"database":{"analyzeCheckSeconds":0}}': settings added to both builds' configuration. */
const CONFIG = JSON.parse(process.env.CONFIG ?? '{}');
const GROW = process.env.GROW ? process.env.GROW.split(',').map(Number) : undefined;
const SEGMENT = Number(process.env.SEGMENT ?? 5000);

/** A built checkout of BASELINE_REV (or BASELINE_DIR as it is): answers the path of its dist/main.js. */
function baselineBuild() {
  if (process.env.BASELINE_DIR) return join(process.env.BASELINE_DIR, 'dist/main.js');
  const sha = execFileSync('git', ['rev-parse', '--short', BASELINE_REV], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = join(tmpdir(), `svc-baseline-${sha}`);
  const main = join(dir, 'dist/main.js');
  if (existsSync(main)) return main;
  console.log(`building ${BASELINE_REV} (${sha}) in ${dir}`);
  rmSync(dir, { recursive: true, force: true });
  execFileSync('git', ['worktree', 'prune'], { cwd: ROOT });
  execFileSync('git', ['worktree', 'add', '--detach', '--force', dir, sha], { cwd: ROOT, stdio: 'ignore' });
  // Its dependencies are a subset of this checkout's (the stack has only grown since).
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: dir,
    stdio: 'inherit',
  });
  return main;
}

/** CPU time (µs) of each thread of a process so far, by thread id. */
function threadCpu(pid) {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), cpuMicros(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** THREADS=1: the CPU a create of each of the service's threads, summed by the thread's name (`/proc/.../comm`). */
function printThreads(pid, spent, n) {
  const byName = new Map();
  for (const { tid, us } of spent) {
    let name = '?';
    try {
      name = tid === pid ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    } catch {} // ended meanwhile
    byName.set(name, (byName.get(name) ?? 0) + us);
  }
  const rows = [...byName].sort((a, b) => b[1] - a[1]).filter(([, us]) => us / n >= 1);
  console.log(`  threads, CPU us a create: ${rows.map(([name, us]) => `${name} ${Math.round(us / n)}`).join(', ')}`);
}

/**
 * CPU time (us) of the server processes of a database (PostgreSQL on this machine), sampled while a load runs: each
 * backend's CPU since it was first seen, and a backend that ends between samples keeps its last reading (summing the
 * backends present at two readings turned negative when they came and went). `stop()` answers the sum.
 */
function serverCpuSampler(client) {
  const first = new Map();
  const last = new Map();
  const sample = async () => {
    const { rows } = await client.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
    for (const { pid } of rows) {
      try {
        const us = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
        if (!first.has(pid)) first.set(pid, started ? 0 : us);
        last.set(pid, us);
      } catch {} // ended meanwhile
    }
  };
  let started = false;
  let timer;
  const ready = sample().then(() => {
    started = true;
    timer = setInterval(() => void sample().catch(() => {}), 100);
  });
  return {
    ready,
    async stop() {
      clearInterval(timer);
      await sample();
      let us = 0;
      for (const [pid, end] of last) us += end - first.get(pid);
      return us;
    },
  };
}

/**
 * Creates of the search benchmark's items `from` .. `to` - 1 through CONNECTIONS connections to `url`; `pid`: the
 * process answering; `monitor`: a client of the service's PostgreSQL database, whose server CPU is then read too.
 */
async function creates(url, pid, from = 0, to = N, monitor = undefined) {
  const pool = new Pool(url, { connections: CONNECTIONS, pipelining: 1 });
  try {
    let next = from;
    const before = threadCpu(pid);
    const sampler = monitor ? serverCpuSampler(monitor) : undefined;
    await sampler?.ready;
    const loaderBefore = process.cpuUsage();
    const t0 = performance.now();
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
    const seconds = (performance.now() - t0) / 1000;
    const server = sampler ? await sampler.stop() : 0;
    const after = threadCpu(pid);
    const loader = process.cpuUsage(loaderBefore);
    const spent = [...after].map(([tid, us]) => ({ tid, us: us - (before.get(tid) ?? 0) }));
    const mainUs = spent.find(({ tid }) => tid === pid)?.us ?? 0;
    const otherUs = spent.filter(({ tid }) => tid !== pid).reduce((sum, { us }) => sum + us, 0);
    const n = to - from;
    if (process.env.THREADS === '1') printThreads(pid, spent, n);
    return {
      rate: n / seconds,
      main: mainUs / n,
      others: otherUs / n,
      server: server / n,
      loader: (loader.user + loader.system) / n,
    };
  } finally {
    await pool.close();
  }
}

/** One round of one build: N creates on a fresh store. */
async function round(main) {
  const { root, configFile } = writeBenchConfig(
    'svc-bench-creates-',
    [{ name: 'writer', key: KEY, roles: ['writer', 'everyone'] }],
    CONFIG,
  );
  const database = ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_creates') : undefined;
  const monitor = database ? new pg.Client({ connectionString: database.url }) : undefined;
  const service = await startService({
    port: await freePort(),
    configFile,
    main,
    env: database ? { DATABASE_URL: database.url } : {},
  });
  try {
    await monitor?.connect();
    if (WARMUP) await creates(service.url, service.pid, 0, WARMUP);
    return await creates(service.url, service.pid, WARMUP, WARMUP + N, monitor);
  } finally {
    await monitor?.end();
    await service.close();
    await database?.drop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** One round of the bare route: the same POSTs answered `{"id": <UUID>}` by a bare Fastify route. */
async function bareRound() {
  const base = await startBaseline({ id: '0b7c1e1a-3c2d-4a57-9d52-5f0e3c1a2b4c' });
  try {
    if (WARMUP) await creates(base.url, base.pid, 0, WARMUP);
    return await creates(base.url, base.pid, WARMUP, WARMUP + N);
  } finally {
    await base.close();
  }
}

/** One build's store grown to the largest of GROW, the last SEGMENT creates before each size of GROW measured. */
async function growRound(main) {
  const { root, configFile } = writeBenchConfig(
    'svc-bench-creates-',
    [{ name: 'writer', key: KEY, roles: ['writer', 'everyone'] }],
    CONFIG,
  );
  const database = ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_creates') : undefined;
  const monitor = database ? new pg.Client({ connectionString: database.url }) : undefined;
  const service = await startService({
    port: await freePort(),
    configFile,
    main,
    env: database ? { DATABASE_URL: database.url } : {},
  });
  try {
    await monitor?.connect();
    const out = [];
    let have = 0;
    for (const size of GROW) {
      const start = Math.max(have, size - SEGMENT);
      if (start > have) await creates(service.url, service.pid, have, start);
      out.push(await creates(service.url, service.pid, start, size, monitor));
      have = size;
    }
    return out;
  } finally {
    await monitor?.end();
    await service.close();
    await database?.drop();
    rmSync(root, { recursive: true, force: true });
  }
}

if (GROW) {
  const grown = [
    { name: 'this build', main: join(ROOT, 'dist/main.js') },
    { name: `baseline ${process.env.BASELINE_DIR ?? BASELINE_REV}`, main: baselineBuild() },
  ];
  console.log(`${ENGINE}: stores grown to ${GROW.join(', ')}, the last ${SEGMENT} creates before each measured`);
  console.log('| round | build | size | creates/s | CPU us a create: main | other threads | server |');
  console.log('|---|---|---|---|---|---|---|');
  for (let r = 0; r < ROUNDS; r++) {
    for (const { name, main } of grown) {
      const sizes = await growRound(main);
      sizes.forEach((x, i) =>
        console.log(
          `| ${r + 1} | ${name} | ${GROW[i]} | ${Math.round(x.rate)} | ${Math.round(x.main)} | ${Math.round(x.others)} | ${Math.round(x.server)} |`,
        ),
      );
    }
  }
  process.exit(0);
}

const builds = [
  { name: 'this build', main: join(ROOT, 'dist/main.js') },
  { name: `baseline ${process.env.BASELINE_DIR ?? BASELINE_REV}`, main: baselineBuild() },
];
const BARE_NAME = 'bare route (same POSTs)';
const results = new Map([...builds.map(({ name }) => [name, []]), ...(BARE ? [[BARE_NAME, []]] : [])]);
console.log(`${ENGINE}: ${N} creates a round, ${CONNECTIONS} connections, builds alternated, ${ROUNDS} rounds`);
// The loader (this process) is cold too: its first N requests cost it five times the CPU of later ones (300 against
// 60 us a create), on the cores the first round's first build shares with it, which then lost its pair every time (84,
// 88%). One round of the bare route first, not counted, warms it.
await bareRound();
for (let r = 0; r < ROUNDS; r++) {
  // Which build goes first alternates from round to round, so that a bias of the position (the machine's state after
  // the round before, a database's checkpoint) falls on both builds alike: the same code in both gave pairs of 72-121%.
  for (const build of r % 2 === 0 ? builds : [...builds].reverse())
    results.get(build.name).push(await round(build.main));
  if (BARE) results.get(BARE_NAME).push(await bareRound());
  const [mine, base] = builds.map(({ name }) => results.get(name)[r]);
  console.log(
    `round ${r + 1}: ${Math.round(mine.rate)} / ${Math.round(base.rate)} creates/s (${Math.round((100 * mine.rate) / base.rate)}%)`,
  );
}
const ratios = results.get(builds[0].name).map((x, i) => x.rate / results.get(builds[1].name)[i].rate);
const m = (name, key) => median(results.get(name).map((x) => x[key]));
console.log(`\n${ENGINE}, medians of ${ROUNDS} rounds`);
console.log(
  '| build | creates/s | vs baseline | CPU us a create: main thread | other threads | server | loader | rounds (creates/s) |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const name of results.keys()) {
  const ratio = `${Math.round((100 * m(name, 'rate')) / m(builds[1].name, 'rate'))}%`;
  const runs = results
    .get(name)
    .map((x) => Math.round(x.rate))
    .join(', ');
  console.log(
    `| ${name} | ${Math.round(m(name, 'rate'))} | ${ratio} | ${Math.round(m(name, 'main'))} | ${Math.round(m(name, 'others'))} | ${Math.round(m(name, 'server'))} | ${Math.round(m(name, 'loader'))} | ${runs} |`,
  );
}
console.log(
  `pairs (this build / baseline, round by round): ${ratios.map((x) => `${Math.round(100 * x)}%`).join(', ')}`,
);
if (BARE) {
  const bare = (name) => results.get(name).map((x, i) => x.rate / results.get(BARE_NAME)[i].rate);
  for (const { name } of builds)
    console.log(
      `${name} / bare route: ${Math.round(100 * median(bare(name)))}% (median of the rounds' ratios; rounds ${bare(name)
        .map((x) => `${Math.round(100 * x)}%`)
        .join(', ')})`,
    );
}
