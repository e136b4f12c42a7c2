// Issue 47 goal 1: where the service's CPU goes in a create and in a list (the search benchmark's store and list), from
// a V8 CPU profile of the service: the creates that load the store, a pause, then the list under load; the profile is
// split at the pause and each phase's self time printed by function (idle and GC apart), per request.
// Usage: npm run build && node bench/storage-list-profile.mjs
// Env:   ENGINE=sqlite|postgres; PG_ADMIN_URL; ITEMS (10000); DURATION (10 s of lists); CONNECTIONS (50); READER
//        (half: the caller may read half the store); TOP (25 functions a phase); MAIN (another build's dist/main.js);
//        PROFILE_DIR (kept there; default a temp dir, removed); PROFILE=0: no profile, the CPU per request of the
//        service's threads only (the scheduler's account: the main thread, and the others together: SQLite's reader
//        and writer threads, V8's helpers).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { loadSearchItems } from './search-item.mjs';
import { createBenchDatabase, freePort, load, profileFunctionName, startService, writeBenchConfig } from './lib.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ITEMS = Number(process.env.ITEMS ?? 10000);
const DURATION = Number(process.env.DURATION ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const READER = process.env.READER ?? 'half';
const TOP = Number(process.env.TOP ?? 25);
const PROFILE = process.env.PROFILE !== '0';
const KEYS = { writer: 'k-prof-writer-0123456789', half: 'k-prof-half-0123456789', all: 'k-prof-all-0123456789' };

const { root, configFile } = writeBenchConfig('svc-bench-listprof-', [
  { name: 'writer', key: KEYS.writer, roles: ['writer'] },
  { name: 'half', key: KEYS.half, roles: ['half-0'] },
  { name: 'all', key: KEYS.all, roles: ['everyone'] },
]);
const profileDir = process.env.PROFILE_DIR ?? join(root, 'profile');

const db = ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_listprof') : undefined;
if (PROFILE) process.env.BENCH_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${profileDir}`;
const service = await startService({
  port: await freePort(),
  configFile,
  env: db ? { DATABASE_URL: db.url } : {},
  ...(process.env.MAIN ? { main: process.env.MAIN } : {}),
});
let lists;
try {
  const pool = new Pool(service.url, { connections: 50, pipelining: 1 });
  const loadBefore = threadCpu(service.pid);
  await loadSearchItems(pool, KEYS.writer, ITEMS);
  await pool.close();
  report('create', loadBefore, ITEMS);
  await new Promise((r) => setTimeout(r, 3000));
  const params = new URLSearchParams({
    filter: JSON.stringify([{ property: 'value.status', operator: 'eq', value: 'open' }]),
    sort: 'value.n|DESC',
    limit: '100',
  });
  const url = `${service.url}/cxf/svc-core/storage/store/search?${params}`;
  const before = threadCpu(service.pid);
  const r = await load({ url, headers: { 'x-apikey': KEYS[READER] }, connections: CONNECTIONS, duration: DURATION });
  if (r.non2xx) throw new Error(`lists: ${r.non2xx} failed`);
  lists = r.total;
  report('list', before, r.total);
  console.log(`${ENGINE}: ${ITEMS} creates, then ${r.total} lists (${Math.round(r.rps)}/s)`);
} finally {
  await service.close();
  await db?.drop();
}

/** CPU time (µs, the scheduler's nanoseconds) of each thread of a process so far, by thread id. */
function threadCpu(pid) {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1000);
    } catch {} // the thread ended meanwhile
  }
  return out;
}

/** Prints the CPU per request of the service's main thread and of its other threads since `before`. */
function report(what, before, requests) {
  const spent = [...threadCpu(service.pid)].map(([tid, us]) => [tid, us - (before.get(tid) ?? 0)]);
  const main = spent.find(([tid]) => tid === service.pid)?.[1] ?? 0;
  const others = spent.reduce((sum, [tid, us]) => sum + (tid === service.pid ? 0 : us), 0);
  console.log(
    `CPU a ${what}: main thread ${Math.round(main / requests)} µs, other threads ${Math.round(others / requests)} µs`,
  );
}

if (!PROFILE) process.exit(0);
const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile') && f.includes(`.${service.pid}.`));
const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const nameOf = profileFunctionName;
// Sample times, and the pause between the phases: the first run of idle samples longer than 2 s.
const times = [];
let t = profile.startTime;
for (const d of profile.timeDeltas) times.push((t += d));
const idle = (i) => byId.get(profile.samples[i]).callFrame.functionName === '(idle)';
let best;
for (let i = 0, from = -1; i < profile.samples.length && !best; i++) {
  if (!idle(i)) from = -1;
  else if (from < 0) from = i;
  else if (times[i] - times[from] > 2_000_000) best = { from, to: i };
}
while (best && best.to < profile.samples.length && idle(best.to)) best.to++;
const phases = [
  ['creates', 0, best.from, ITEMS],
  ['lists', best.to, profile.samples.length, lists],
];
for (const [phase, from, to, requests] of phases) {
  const self = new Map();
  let busy = 0;
  for (let i = from; i < to; i++) {
    const node = byId.get(profile.samples[i]);
    const us = (profile.timeDeltas[i + 1] ?? 0) || 0;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += us;
    const name = nameOf(node);
    self.set(name, (self.get(name) ?? 0) + us);
  }
  console.log(`\n${phase}: main thread busy ${Math.round(busy / requests)} µs a request (${requests} requests)`);
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    console.log(
      `${((100 * us) / busy).toFixed(1).padStart(5)}%  ${Math.round(us / requests)
        .toString()
        .padStart(5)} µs  ${name}`,
    );
}
if (!process.env.PROFILE_DIR) rmSync(root, { recursive: true, force: true });
else console.log(`\nprofile: ${join(profileDir, file)}`);
