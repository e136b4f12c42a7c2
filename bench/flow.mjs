import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  compare,
  freePort,
  load,
  median,
  processCpuMicros,
  spawnBenchServer,
  startService,
  writeFlowBenchConfig,
} from './lib.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const DURATION = Number(process.env.DURATION ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const BIG = Number(process.env.BIG_MB ?? 100) * 1024 * 1024;
const RATE = Number(process.env.RATE ?? 0);
const WORK_US = (process.env.WORK_US ?? '100,1000').split(',').map(Number);
const KEY = 'k-bench-flow-0123456789';

const upstream = await spawnBenchServer('bench/flow-upstream.mjs');
const bare = await spawnBenchServer('bench/flow-bare-proxy.mjs', { UPSTREAM: upstream.url });
const root = mkdtempSync(join(tmpdir(), 'svc-bench-flow-'));
const configFile = join(root, 'config.json');
writeFlowBenchConfig(configFile, KEY, upstream.url);
const service = await startService({ port: await freePort(), configFile });
const BASELINE_DIR = process.env.BASELINE_DIR;
const other = BASELINE_DIR
  ? await startService({ port: await freePort(), configFile, main: join(BASELINE_DIR, 'dist/main.js') })
  : undefined;

const rssOf = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
const cpuOf = (pid) => processCpuMicros(pid);
const processes = {
  upstream: upstream.child.pid,
  'bare proxy': bare.child.pid,
  service: service.pid,
  ...(other ? { 'baseline build': other.pid } : {}),
  'load generator': process.pid,
};

/**
 * CPU µs per request of each process during a run, read from /proc before and after it. On a busy machine a process
 * may still work off requests after the load generator stops: the reading waits until every process has gone quiet
 * (under 2 ms of CPU in 100 ms; at most 5 s), so that the tail is counted in its own scenario, not the next one.
 */
const cpuPerRequest = {
  before: () => Object.fromEntries(Object.entries(processes).map(([p, pid]) => [p, cpuOf(pid)])),
  after: async (before, r) => {
    const servers = Object.entries(processes).filter(([p]) => p !== 'load generator');
    const serversCpu = () => servers.reduce((sum, [, pid]) => sum + cpuOf(pid), 0);
    const until = Date.now() + 5000;
    for (let last = serversCpu(); Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const total = serversCpu();
      if (total - last < 2000) break;
      last = total;
    }
    return Object.fromEntries(Object.entries(processes).map(([p, pid]) => [p, (cpuOf(pid) - before[p]) / r.total]));
  },
};

/** Rounds alternating the scenarios; per scenario the median req/s, p50 and CPU µs per request of each process. */
async function run(scenarios) {
  // Paced: every scenario gets the same arrivals, so that CPU per request compares at the same batching.
  if (RATE) for (const scenario of Object.values(scenarios)) scenario.overallRate = RATE;
  const results = await compare(scenarios, {
    rounds: ROUNDS,
    duration: DURATION,
    connections: CONNECTIONS,
    probe: cpuPerRequest,
  });
  const base = Object.values(results)[0].rps;
  console.log(
    `\n| scenario | req/s (median) | vs direct | p50 ms | CPU µs per request (median): ${Object.keys(processes).join(' / ')} | runs (req/s) |`,
  );
  console.log('|---|---|---|---|---|---|');
  for (const [name, r] of Object.entries(results)) {
    const cpu = Object.keys(processes)
      .map((p) => Math.round(median(r.probes.map((c) => c[p]))))
      .join(' / ');
    console.log(
      `| ${name} | ${Math.round(r.rps)} | ${((r.rps / base) * 100).toFixed(0)}% | ${r.p50} | ${cpu} | ${r.runs.join(', ')} |`,
    );
  }
  console.log('');
  const before = results['through the baseline build'];
  if (before) {
    const mine = results['through the service (X-APIKey)'];
    const perRound = mine.probes.map((c, i) => c.service / before.probes[i]['baseline build']);
    console.log(
      `service over the baseline build, median of the rounds: ${median(perRound).toFixed(2)} (rounds ${perRound.map((x) => x.toFixed(2)).join(', ')})`,
    );
  }
  // The goal's figure: each proxy's own CPU per request over the bare proxy's, round by round, then the median.
  const floor = results['bare undici proxy (floor)'];
  if (!floor) return;
  const ratios = [
    ['service', results['through the service (X-APIKey)']],
    ['baseline build', results['through the baseline build']],
  ]
    .filter(([, r]) => r)
    .map(([p, r]) => {
      const perRound = r.probes.map((c, i) => c[p] / floor.probes[i]['bare proxy']);
      return `${p} ${median(perRound).toFixed(2)} (rounds ${perRound.map((x) => x.toFixed(2)).join(', ')})`;
    });
  console.log(`CPU per request over the bare proxy's, median of the rounds: ${ratios.join('; ')}`);
}

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
  for (let sent = 0; sent < size; sent += block.length)
    yield sent + block.length <= size ? block : block.subarray(0, size - sent);
}

try {
  const apiKey = { 'x-apikey': KEY };
  const baselineBuild = (path) =>
    other
      ? { 'through the baseline build': { url: `${other.url}/cxf/svc-flow/flow/engine/${path}`, headers: apiKey } }
      : {};
  // Warm-up (JIT, pools) before the first round, so that round 1 measures the same code as the others.
  for (const url of [service.url, other?.url].filter(Boolean))
    await load({
      url: `${url}/cxf/svc-flow/flow/engine/tasks/1`,
      headers: apiKey,
      connections: CONNECTIONS,
      duration: 1,
    });
  console.log(
    `Flow proxy vs direct, ${CONNECTIONS} connections, ${ROUNDS} rounds x ${DURATION} s; a small JSON answer`,
  );
  await run({
    'direct to the upstream': { url: `${upstream.url}/base/tasks/1` },
    'bare undici proxy (floor)': { url: `${bare.url}/tasks/1` },
    'through the service (X-APIKey)': { url: `${service.url}/cxf/svc-flow/flow/engine/tasks/1`, headers: apiKey },
    ...baselineBuild('tasks/1'),
  });
  for (const us of WORK_US) {
    console.log(`\nThe same answer after ${us} µs of upstream CPU work`);
    await run({
      'direct to the upstream': { url: `${upstream.url}/base/work?us=${us}` },
      'through the service (X-APIKey)': {
        url: `${service.url}/cxf/svc-flow/flow/engine/work?us=${us}`,
        headers: apiKey,
      },
      ...baselineBuild(`work?us=${us}`),
    });
  }
  if (process.env.SKIP_EXTRAS !== '1') {
    // One connection, sequential requests: the added latency in finer grain than autocannon's whole milliseconds.
    const timeOne = async (url, headers) => {
      const times = [];
      for (let i = 0; i < 2000; i++) {
        const t0 = performance.now();
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        times.push(performance.now() - t0);
      }
      return median(times);
    };
    const d1 = await timeOne(`${upstream.url}/base/tasks/1`, {});
    const p1 = await timeOne(`${service.url}/cxf/svc-flow/flow/engine/tasks/1`, apiKey);
    console.log(
      `\none connection, 2000 sequential GETs: median ${d1.toFixed(3)} ms direct, ${p1.toFixed(3)} ms through the service (+${(p1 - d1).toFixed(3)} ms)`,
    );

    const up = await measureRss(async () => {
      const res = await fetch(`${service.url}/cxf/svc-flow/flow/engine/upload`, {
        method: 'POST',
        headers: { ...apiKey, 'content-type': 'application/octet-stream' },
        body: Readable.toWeb(Readable.from(chunks(BIG))),
        duplex: 'half',
      });
      const { length } = await res.json();
      if (length !== BIG) throw new Error(`upload arrived with ${length} bytes`);
    });
    const down = await measureRss(async () => {
      const res = await fetch(`${service.url}/cxf/svc-flow/flow/engine/large?size=${BIG}`, { headers: apiKey });
      let got = 0;
      for await (const c of res.body) got += c.length;
      if (got !== BIG) throw new Error(`download arrived with ${got} bytes`);
    });
    const mb = (n) => (n / 1024 / 1024).toFixed(1);
    console.log(
      `${BIG / 1024 / 1024} MB upload: service RSS ${mb(up.start)} -> peak ${mb(up.peak)} MB (+${mb(up.peak - up.start)} MB)`,
    );
    console.log(
      `${BIG / 1024 / 1024} MB download: service RSS ${mb(down.start)} -> peak ${mb(down.peak)} MB (+${mb(down.peak - down.start)} MB)`,
    );
  }
} finally {
  await service.close();
  await other?.close();
  for (const { child } of [upstream, bare]) child.kill('SIGTERM');
  rmSync(root, { recursive: true, force: true });
}
