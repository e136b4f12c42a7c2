// Issue 47 goal 5: what each proxy's young collections keep. Each proxy runs with `--trace-gc-nvp`; after a warm-up,
// a fixed number of requests; printed: scavenges and full collections over them, and per scavenge the bytes that
// survived and the bytes promoted to the old generation (V8's own figures, which do not depend on the machine's load
// as CPU time does). A proxy whose per-request objects outlive two scavenges promotes them all and pays for it in
// scavenges that copy more and in full collections.
// Usage: npm run build && node bench/flow-gc.mjs
// Env:   WARMUP (30000 requests), REQUESTS (20000), CONNECTIONS (50), BASELINE_DIR (another built checkout: its service
//        too), FASTIFY=0 (leave out bench/flow-fastify-proxy.mjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, median, ROOT, writeFlowBenchConfig } from './lib.mjs';

const WARMUP = Number(process.env.WARMUP ?? 30000);
const REQUESTS = Number(process.env.REQUESTS ?? 20000);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const KEY = 'k-bench-flow-0123456789';
const root = mkdtempSync(join(tmpdir(), 'svc-bench-flow-gc-'));
const children = [];

/** A node process whose stdout is watched: its first number line is its port, its `gc=` lines are kept. */
function start(args, env) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const gcs = [];
  let rest = '';
  const port = new Promise((resolve) => {
    child.stdout.on('data', (d) => {
      const lines = (rest + d).split('\n');
      rest = lines.pop();
      for (const line of lines) {
        if (/^\d+$/.test(line.trim())) resolve(Number(line));
        else if (line.includes(' gc=')) gcs.push(line);
      }
    });
  });
  return { child, gcs, port };
}

const upstream = start([join(ROOT, 'bench/flow-upstream.mjs')], {});
const upstreamUrl = `http://127.0.0.1:${await upstream.port}`;
const configFile = join(root, 'config.json');
writeFlowBenchConfig(configFile, KEY, upstreamUrl, { database: { analyzeCheckSeconds: 0 } });
const proxies = {};
for (const [name, script] of [
  ['bare', 'bench/flow-bare-proxy.mjs'],
  ...(process.env.FASTIFY === '0' ? [] : [['fastify', 'bench/flow-fastify-proxy.mjs']]),
]) {
  const p = start(['--trace-gc-nvp', join(ROOT, script)], { UPSTREAM: upstreamUrl });
  proxies[name] = { ...p, url: `http://127.0.0.1:${await p.port}/tasks/1`, headers: {} };
}
for (const [name, dir] of [
  ['service', ROOT],
  ['baseline', process.env.BASELINE_DIR],
]) {
  if (!dir) continue;
  const port = await freePort();
  const dataDir = mkdtempSync(join(root, 'data-'));
  const p = start(['--trace-gc-nvp', join(dir, 'dist/main.js'), 'start'], {
    PORT: String(port),
    HOST: '127.0.0.1',
    SVC_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SVC_CONFIG: configFile,
  });
  for (const deadline = Date.now() + 60_000; ; ) {
    if (Date.now() > deadline) throw new Error(`${name} did not start`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 300));
  }
  proxies[name] = {
    ...p,
    url: `http://127.0.0.1:${port}/cxf/svc-flow/flow/engine/tasks/1`,
    headers: { 'x-apikey': KEY },
  };
}

const field = (line, name) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
const kb = (bytes) => `${Math.round(bytes / 1024)} KB`;
try {
  for (const p of Object.values(proxies))
    await autocannon({ url: p.url, headers: p.headers, connections: CONNECTIONS, amount: WARMUP });
  console.log(`${REQUESTS} requests at ${CONNECTIONS} connections after ${WARMUP} of warm-up; per scavenge, medians`);
  console.log('| proxy | scavenges | full collections | survived | promoted | scavenge pause ms |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, p] of Object.entries(proxies)) {
    const from = p.gcs.length;
    await autocannon({ url: p.url, headers: p.headers, connections: CONNECTIONS, amount: REQUESTS });
    await new Promise((r) => setTimeout(r, 300));
    const gcs = p.gcs.slice(from);
    const scavenges = gcs.filter((l) => l.includes(' gc=s '));
    const full = gcs.filter((l) => l.includes(' gc=mc') || l.includes(' gc=ms'));
    const m = (name) => median(scavenges.map((l) => field(l, name)));
    console.log(
      `| ${name} | ${scavenges.length} | ${full.length} | ${kb(m('new_space_survived'))} | ${kb(m('promoted'))} | ${m('pause').toFixed(1)} |`,
    );
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
  rmSync(root, { recursive: true, force: true });
}
