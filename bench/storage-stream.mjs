// Issue 43: the live store stream under fan-out. SUBSCRIBERS streams on one store of ITEMS items, half of the items
// readable by role-a, half by role-b; the subscribers are KEYS API keys (half role-a, half role-b), so each may read
// half. Per write (an update of an item, alternating roles): the time until the last subscriber that may read it has
// its event (p99 over WRITES), and the events that reached subscribers that may not read the item (must be 0).
// Also the CPU the subscribers' service spent per delivered event (/proc, over the writes). The streams are read in
// THREADS worker threads (2; bench/sse-subscribers.mjs), so the client's parsing does not set the pace.
// Usage: npm run build && node bench/storage-stream.mjs
// Env:   ENGINE=sqlite|postgres (default sqlite); PG_ADMIN_URL; ITEMS (10000); SUBSCRIBERS (1000); KEYS (40);
//        WRITES (50); THREADS (2); on PostgreSQL the same again with the subscribers on a second instance.
//        BASELINE_DIR (a built checkout): ROUNDS (3) rounds, this build and that one in turn on the same data.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cpuMicros, median, startService, createBenchDatabase, freePort, writeBenchConfig } from './lib.mjs';
import { openSubscribers } from './sse-subscribers.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ITEMS = Number(process.env.ITEMS ?? 10_000);
const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 1000);
const KEYS = Number(process.env.KEYS ?? 40);
const WRITES = Number(process.env.WRITES ?? 50);
const THREADS = Number(process.env.THREADS ?? 2);
const ROUNDS = Number(process.env.ROUNDS ?? (process.env.BASELINE_DIR ? 3 : 1));
const builds = [
  { name: 'this build', main: undefined },
  ...(process.env.BASELINE_DIR
    ? [{ name: `baseline ${process.env.BASELINE_DIR}`, main: join(process.env.BASELINE_DIR, 'dist/main.js') }]
    : []),
];
const WRITER_KEY = 'k-bench-stream-writer-01';
const STORE = '/cxf/svc-core/storage/store/bench';
const roleOfKey = (k) => (k % 2 === 0 ? 'role-a' : 'role-b');
const keyOf = (k) => `k-bench-stream-reader-${String(k).padStart(4, '0')}`;

const { root, configFile } = writeBenchConfig(
  'svc-bench-stream-',
  [
    { name: 'writer', key: WRITER_KEY, roles: ['W'] },
    ...Array.from({ length: KEYS }, (_, k) => ({ name: `reader-${k}`, key: keyOf(k), roles: [roleOfKey(k)] })),
  ],
  { limits: { streamsPerCaller: 0, connectionsPerAddress: 0 } },
);
const benchDb = ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_stream') : undefined;
// One data directory for every service of the run (one at a time on SQLite), so the builds see the same items.
const serviceEnv = ENGINE === 'postgres' ? { DATABASE_URL: benchDb.url } : { SVC_DATA_DIR: join(root, 'data') };

const body = (i, value) =>
  JSON.stringify({
    value,
    readRestriction: { roles: [i % 2 === 0 ? 'role-a' : 'role-b'] },
    writeRestriction: { roles: ['W'] },
  });

async function put(url, i, value) {
  const res = await fetch(`${url}${STORE}/item-${i}`, {
    method: 'PUT',
    headers: { 'x-apikey': WRITER_KEY, 'content-type': 'application/json' },
    body: body(i, value),
  });
  if (res.status !== 200) throw new Error(`write answered ${res.status}`);
  await res.arrayBuffer();
}

async function seed(url) {
  for (let from = 0; from < ITEMS; from += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, ITEMS - from) }, (_, k) => put(url, from + k, { n: from + k })),
    );
}

/** WRITES updates of random items; per write the time until the last subscriber that may read the item has it. */
async function fanout(writerUrl, subscriberService, label) {
  const role = (s) => roleOfKey(s % KEYS);
  const subs = await openSubscribers({
    url: subscriberService.url,
    path: `${STORE}/stream`,
    // Subscriber s holds key s % KEYS; every marked frame it gets must be of an item its role may read.
    subscribers: Array.from({ length: SUBSCRIBERS }, (_, s) => ({
      key: keyOf(s % KEYS),
      role: role(s),
      mustContain: `"readRestriction":{"roles":["${role(s)}"]`,
    })),
    field: 'mark',
    threads: THREADS,
  });
  const lasts = [];
  const stat = `/proc/${subscriberService.pid}/stat`;
  let delivered = 0;
  let cpu;
  let stats;
  try {
    const cpu0 = cpuMicros(stat);
    for (let w = 0; w < WRITES; w++) {
      const i = Math.floor(Math.random() * ITEMS);
      const mark = `w-${w}`;
      const readable = i % 2 === 0 ? 'role-a' : 'role-b';
      const t0 = performance.timeOrigin + performance.now();
      const arrived = subs.awaitMark(mark, (sub) => sub.role === readable);
      await put(writerUrl, i, { n: i, mark });
      lasts.push((await arrived) - t0);
      delivered += Array.from({ length: SUBSCRIBERS }, (_, s) => role(s)).filter((r) => r === readable).length;
      await new Promise((r) => setTimeout(r, 50));
    }
    cpu = cpuMicros(stat) - cpu0;
    await new Promise((r) => setTimeout(r, 200)); // late (wrong) deliveries would show up by now
    stats = await subs.stats();
  } finally {
    await subs.close();
  }
  const sorted = [...lasts].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
  const perEvent = cpu / delivered;
  console.log(
    `${label}: ${SUBSCRIBERS} subscribers (${KEYS} keys, each may read half of ${ITEMS} items), ${WRITES} writes; ` +
      `write -> last readable subscriber: median ${median(lasts).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ` +
      `max ${sorted.at(-1).toFixed(1)} ms; events to subscribers that may not read the item: ${stats.wrong}; ` +
      `service CPU ${perEvent.toFixed(1)} µs per delivered event; client's busiest thread ` +
      `${(stats.clientUtilisation * 100).toFixed(0)}% busy`,
  );
  return { median: median(lasts), p99, perEvent, wrong: stats.wrong };
}

const uptime = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

let service = await startService({ port: await freePort(), configFile, env: serviceEnv });
let second;
try {
  const t0 = performance.now();
  await seed(service.url);
  console.log(`seeded ${ITEMS} items in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const shapes = ENGINE === 'postgres' ? ['one instance', 'writer on A, subscribers on B'] : ['one instance'];
  const results = new Map();
  for (let round = 0; round < ROUNDS; round++)
    for (const build of builds) {
      service ??= await startService({ port: await freePort(), configFile, env: serviceEnv, main: build.main });
      for (const shape of shapes) {
        if (shape !== 'one instance')
          second = await startService({ port: await freePort(), configFile, env: serviceEnv, main: build.main });
        const r = await fanout(
          service.url,
          second ?? service,
          `${ENGINE}, ${shape}, ${build.name}, round ${round + 1}`,
        );
        results.set(`${shape}\u0000${build.name}`, [...(results.get(`${shape}\u0000${build.name}`) ?? []), r]);
      }
      await second?.close();
      await service.close();
      second = service = undefined;
    }
  console.log(`\n${ENGINE}, ${SUBSCRIBERS} subscribers, medians of ${ROUNDS} round(s) (load average: ${uptime()})`);
  console.log('| shape | build | p99 ms | median ms | CPU µs per delivered event | events to non-readers |');
  console.log('|---|---|---|---|---|---|');
  for (const shape of shapes)
    for (const build of builds) {
      const rs = results.get(`${shape}\u0000${build.name}`);
      const row = (f) => median(rs.map(f)).toFixed(1);
      const wrong = rs.reduce((n, r) => n + r.wrong, 0);
      console.log(
        `| ${shape} | ${build.name} | ${row((r) => r.p99)} | ${row((r) => r.median)} | ${row((r) => r.perEvent)} | ${wrong} |`,
      );
    }
} finally {
  await second?.close();
  await service?.close();
  rmSync(root, { recursive: true, force: true });
  await benchDb?.drop();
}
