// Issue 47 goal 5: the instructions a proxied call costs, counted by valgrind's callgrind (the same binary and inputs
// give the same count whatever the machine's load, where CPU time from /proc at load 10-30 varies 4-10x).
// Usage: npm run build && node bench/flow-callgrind.mjs
// Env:   RUNS (3: fresh processes of each proxy, alternated), WARMUP (3000 requests before counting, for the JIT),
//        REQUESTS (1000 counted), CONNECTIONS (10), BASELINE_DIR (another built checkout: its service is counted too),
//        NODE_ARGS (node options for each counted process), FASTIFY=0 (leave out bench/flow-fastify-proxy.mjs, Fastify's own floor),
//        OUT (a directory to keep the callgrind files in, for callgrind_annotate; default a temp dir, removed).
// Each proxy runs under `valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes`; after the warm-up,
// counting is switched on (`callgrind_control -i on`), REQUESTS go through, the counts are dumped (`-d`). Reported:
// instructions a request of the main thread (the service's SQLite reader threads and undici have none on this path).
// The service runs without the statistics upkeep (analyzeCheckSeconds 0): under valgrind every request takes ~50x
// longer, so timer work would weigh 50x more than in a real run.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, median, ROOT, writeFlowBenchConfig } from './lib.mjs';

const RUNS = Number(process.env.RUNS ?? 3);
const WARMUP = Number(process.env.WARMUP ?? 3000);
const REQUESTS = Number(process.env.REQUESTS ?? 1000);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const BASELINE_DIR = process.env.BASELINE_DIR;
const KEY = 'k-bench-flow-0123456789';
/** Node options for every counted process, e.g. `--perf-basic-prof --interpreted-frames-native-stack` to name JIT code. */
const NODE_ARGS = (process.env.NODE_ARGS ?? '').split(' ').filter(Boolean);

const root = mkdtempSync(join(tmpdir(), 'svc-bench-flow-cg-'));
const out = process.env.OUT ?? join(root, 'callgrind');
mkdirSync(out, { recursive: true });

const upstream = spawn(process.execPath, [join(ROOT, 'bench/flow-upstream.mjs')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const upstreamUrl = `http://127.0.0.1:${await firstLine(upstream)}`;
const configFile = join(root, 'config.json');
writeFlowBenchConfig(configFile, KEY, upstreamUrl, {
  server: { host: '127.0.0.1' },
  database: { analyzeCheckSeconds: 0 },
});

function firstLine(child) {
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
  });
}

const proxies = {
  bare: async (label) => {
    const child = valgrind(label, [join(ROOT, 'bench/flow-bare-proxy.mjs')], { UPSTREAM: upstreamUrl });
    return { child, url: `http://127.0.0.1:${await firstLine(child)}/tasks/1`, headers: {} };
  },
  // Fastify's floor: the bare proxy's work inside one hook-less Fastify route (FASTIFY=0 leaves it out).
  ...(process.env.FASTIFY === '0'
    ? {}
    : {
        fastify: async (label) => {
          const child = valgrind(label, [join(ROOT, 'bench/flow-fastify-proxy.mjs')], { UPSTREAM: upstreamUrl });
          return { child, url: `http://127.0.0.1:${await firstLine(child)}/tasks/1`, headers: {} };
        },
      }),
  service: (label) => service(label, ROOT),
  ...(BASELINE_DIR ? { baseline: (label) => service(label, BASELINE_DIR) } : {}),
};

async function service(label, dir) {
  const port = await freePort();
  const dataDir = join(root, `data-${label}`);
  mkdirSync(dataDir);
  const child = valgrind(label, [join(dir, 'dist/main.js'), 'start'], {
    PORT: String(port),
    SVC_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SVC_CONFIG: configFile,
  });
  const base = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 600_000; ; ) {
    if (child.exitCode !== null) throw new Error(`${label} exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${label} did not start within 600 s`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  return { child, url: `${base}/cxf/svc-flow/flow/engine/tasks/1`, headers: { 'x-apikey': KEY } };
}

/** valgrind names its control pipes after HOST (the service's listen address in env): it is given in the config. */
function valgrind(label, args, env) {
  const { HOST: _host, ...rest } = process.env;
  return spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--separate-threads=yes',
      `--callgrind-out-file=${join(out, `${label}.%p`)}`,
      process.execPath,
      ...NODE_ARGS,
      ...args,
    ],
    { env: { ...rest, ...env }, stdio: ['ignore', 'pipe', 'ignore'] },
  );
}

/** Sends `amount` requests; answers how many were answered with a 2xx (at valgrind's pace a few may fail). */
async function requests(url, headers, amount) {
  const r = await autocannon({ url, headers, connections: CONNECTIONS, amount, timeout: 120 });
  const failed = r.non2xx + r.errors + r.timeouts;
  if (failed > amount / 100) throw new Error(`${failed} of ${amount} requests failed`);
  if (failed) console.log(`(${failed} of ${amount} requests failed; counted per answered request)`);
  return r['2xx'];
}

/** Instructions of each thread in the first dump of `pid` (file `<label>.<pid>.1-<thread>`), by thread number. */
function dumped(label, pid) {
  const threads = {};
  for (const file of readdirSync(out).filter((f) => f.startsWith(`${label}.${pid}.1-`))) {
    const text = readFileSync(join(out, file), 'utf8');
    const total = /^(?:summary|totals):\s+(\d+)/m.exec(text);
    threads[Number(file.split('-').at(-1))] = total ? Number(total[1]) : 0;
  }
  return threads;
}

/**
 * Instructions of the main thread inside V8's `Runtime_DefineKeyedOwnPropertyInLiteral`, with what it calls. Node's
 * `process.nextTick` builds its tick object as a literal with computed (symbol) keys; once one of those defines has
 * seen a second map (a field of the tick object generalised after its first use), its feedback is megamorphic for
 * good and every later tick defines that property through the runtime (~1.3k instructions) instead of inline. Whether a
 * process gets there depends on the order of its first ticks, so identical builds land in either state: this figure
 * tells the two apart (0 in the fast state, ~45k a request in the slow one).
 */
function slowTickDefines(label, pid) {
  const file = join(out, `${label}.${pid}.1-01`);
  const text = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const line = text.split('\n').find((l) => l.includes('Runtime_DefineKeyedOwnPropertyInLiteral'));
  return line ? Number(line.trim().split(/\s+/)[0].replaceAll(',', '')) : 0;
}

const counts = Object.fromEntries(Object.keys(proxies).map((name) => [name, []]));
const names = Object.keys(proxies);
try {
  for (let run = 0; run < RUNS; run++) {
    // Rotate the order, so that no proxy is always counted first (or last) in a round.
    for (const name of [...names.slice(run % names.length), ...names.slice(0, run % names.length)]) {
      const label = `${name}-${run}`;
      const p = await proxies[name](label);
      let answered = REQUESTS;
      try {
        await requests(p.url, p.headers, WARMUP);
        execFileSync('callgrind_control', ['-i', 'on', String(p.child.pid)], { stdio: 'ignore' });
        answered = await requests(p.url, p.headers, REQUESTS);
        execFileSync('callgrind_control', ['-d', String(p.child.pid)], { stdio: 'ignore' });
      } finally {
        p.child.kill('SIGKILL');
        await new Promise((r) => (p.child.exitCode !== null || p.child.signalCode ? r() : p.child.once('exit', r)));
      }
      const threads = dumped(label, p.child.pid);
      const all = Object.values(threads).reduce((a, b) => a + b, 0);
      const slowTicks = slowTickDefines(label, p.child.pid) / answered;
      counts[name].push({ main: threads[1] / answered, all: all / answered, slowTicks });
      console.log(
        `${label}: main thread ${(threads[1] / answered / 1000).toFixed(1)}k instructions a request, all threads ${(all / answered / 1000).toFixed(1)}k; in the runtime's literal define (slow nextTick) ${(slowTicks / 1000).toFixed(1)}k`,
      );
    }
  }
} finally {
  upstream.kill('SIGTERM');
  if (!process.env.OUT) rmSync(root, { recursive: true, force: true });
}

const bare = median(counts.bare.map((c) => c.main));
console.log(`\nmain thread, k instructions a request (median of ${RUNS} runs; ratio to the bare proxy's median)`);
for (const [name, list] of Object.entries(counts)) {
  const m = median(list.map((c) => c.main));
  console.log(
    `${name.padEnd(8)} ${list.map((c) => (c.main / 1000).toFixed(1)).join(', ')}  median ${(m / 1000).toFixed(1)}k  ${(m / bare).toFixed(2)}x`,
  );
}
// The same less the slow nextTick defines: what the build costs whichever state its ticks are in.
const bareFast = median(counts.bare.map((c) => c.main - c.slowTicks));
console.log('\nless the slow nextTick defines (k instructions a request; runs in the slow state marked *)');
for (const [name, list] of Object.entries(counts)) {
  const m = median(list.map((c) => c.main - c.slowTicks));
  const runs = list.map((c) => `${((c.main - c.slowTicks) / 1000).toFixed(1)}${c.slowTicks > 5000 ? '*' : ''}`);
  console.log(`${name.padEnd(8)} ${runs.join(', ')}  median ${(m / 1000).toFixed(1)}k  ${(m / bareFast).toFixed(2)}x`);
}
