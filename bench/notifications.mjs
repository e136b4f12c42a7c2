// Issue 9: the notification API under load, against a bare Fastify route in the same run.
// Usage: npm run build && node bench/notifications.mjs
// Env:   ENGINE=sqlite|postgres (default sqlite); PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres; the
//        bench creates its own database there and drops it afterwards); NOTIFICATIONS (100000); SUBSCRIBERS (1000);
//        SENDS (30); ROUNDS (3), DURATION (5 s), CONNECTIONS (50); SCENARIOS=list,afterwrite,fanout (default all);
//        MAIN (the service build to load, default dist/main.js: another worktree's for a build-against-build run);
//        WARMUP (s, default 0: the after-write scenario's alternation run unmeasured on each server first);
//        LIST_VARIANTS=kept,db (answers kept until the next write, every list from the database), LIMITS=1000,50;
//        HEARTBEAT_SECONDS (the streams' heartbeat interval, default 15); for the fan-out's diagnosis: WARM_CLIENT=0 (the
//        reader without its warm-up, bench/sse-subscribers.mjs), MARK_SENDS=1 (a line per send among the service's
//        output, e.g. BENCH_NODE_ARGS=--trace-gc), CPU_BY_THREAD=1, SETTLE_MS (a pause before the first send).
// List: NOTIFICATIONS seeded through SQL in the repository's shape; recipients cycle over 50 roles, 20 organisations
// and 100 users; the reader (an API key with 3 roles and 2 organisations) may see about 5.6% of them.
// First list after a write (issue 47, goal 4): one client alternates a write (an add to role-1, which the reader sees,
// so every list follows a change and no kept answer serves it) and a timed list of `limit=50`; the bare route gets the
// same alternation (a POST, then the timed GET), round by round. The figure is the ratio of the p50s (bare / list),
// and the service's CPU per write+list pair beside the bare route's (all its threads, /proc schedstat, ns). With
// BASELINE_DIR (a built checkout) that build's service takes its turn in every round too (on SQLite on a copy of the
// seeded file), and the CPU ratios of the two builds are printed per round and as the median.
// Fan-out: SUBSCRIBERS streams of one key holding the role, one notification to the role per send; the time from the
// send until the last subscriber has it, and the CPU the subscribers' service spent per delivered event (/proc, over
// the sends). On PostgreSQL the same again with the subscribers on a second instance. The streams are read in THREADS
// worker threads (2; bench/sse-subscribers.mjs: raw sockets, a minimal chunked decoder that still checks every event
// arrives whole and once), so the client does not set the pace; its busiest thread's utilisation is printed, and its
// CPU per delivered event beside the service's (this process, readers included: on 2 cores the two share them), and per
// send the medians of POST -> answer, POST -> first subscriber and first -> last subscriber. BASELINE_DIR (a built checkout) alternates FANOUT_ROUNDS (3) rounds of this build with it.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import {
  compare,
  cpuMicros,
  median,
  printTable,
  processCpuMicros,
  startBaseline,
  startService,
  threadCpuMicros,
  threadCpuByTid,
  createBenchDatabase,
  freePort,
} from './lib.mjs';
import { openSubscribers } from './sse-subscribers.mjs';
import { seedPostgresNotifications, setKey } from './notification-seed.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NOTIFICATIONS = Number(process.env.NOTIFICATIONS ?? 100_000);
const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 1000);
const SENDS = Number(process.env.SENDS ?? 30);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const DURATION = Number(process.env.DURATION ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
/** WARMUP=s: the after-write alternation run unmeasured on each server for s seconds before the rounds (default 0). */
const WARMUP = Number(process.env.WARMUP ?? 0);
const SCENARIOS = new Set((process.env.SCENARIOS ?? 'list,afterwrite,fanout').split(','));
const THREADS = Number(process.env.THREADS ?? 2);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 0);
const FANOUT_ROUNDS = Number(process.env.FANOUT_ROUNDS ?? (process.env.BASELINE_DIR ? 3 : 1));
const builds = [
  { name: 'this build', main: undefined },
  ...(process.env.BASELINE_DIR
    ? [{ name: `baseline ${process.env.BASELINE_DIR}`, main: join(process.env.BASELINE_DIR, 'dist/main.js') }]
    : []),
];
const MAIN = process.env.MAIN || undefined;
const LIST_VARIANTS = new Set((process.env.LIST_VARIANTS ?? 'kept,db').split(','));
const LIMITS = (process.env.LIMITS ?? '1000,50').split(',').map(Number);
const READER_KEY = 'k-bench-notif-reader-0123';
const WRITER_KEY = 'k-bench-notif-writer-0123';
const LISTENER_KEY = 'k-bench-notif-listener-0123';

const root = mkdtempSync(join(tmpdir(), 'svc-bench-notif-'));
const dataDir = join(root, 'data');
const configFile = join(root, 'config.json');
const uncachedConfigFile = join(root, 'config-uncached.json');
const config = {
  tenants: [
    {
      name: 'bench',
      apiKeys: [
        { name: 'reader', key: READER_KEY, roles: ['role-1', 'role-2', 'role-3'], organisations: ['org-1', 'org-2'] },
        { name: 'writer', key: WRITER_KEY, roles: ['NOTIFICATION_ADMIN'] },
        { name: 'listener', key: LISTENER_KEY, roles: ['role-fanout'] },
      ],
    },
  ],
  // Thousands of streams of one key from one address.
  limits: { streamsPerCaller: 0, connectionsPerAddress: 0 },
  // HEARTBEAT_SECONDS: the streams' heartbeat interval (default 15), shorter to make heartbeat passes meet the sends.
  ...(process.env.HEARTBEAT_SECONDS
    ? { notifications: { heartbeatSeconds: Number(process.env.HEARTBEAT_SECONDS) } }
    : {}),
};
writeFileSync(configFile, JSON.stringify(config));
// Every list computed from the database: the cost of the first read after a write.
writeFileSync(uncachedConfigFile, JSON.stringify({ ...config, notifications: { listCacheSeconds: 0 } }));

const benchDb = ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_notif') : undefined;
const pgUrl = benchDb?.url;
/** PostgreSQL, afterwrite with BASELINE_DIR: the baseline build's own database. */
let baseDb;
const serviceEnv = ENGINE === 'postgres' ? { DATABASE_URL: pgUrl } : { SVC_DATA_DIR: dataDir };

/** The i-th notification: recipients cycle over users, roles and organisations. */
function recipientsOf(i) {
  const kind = ['role', 'organisation', 'user'][i % 3];
  const name = kind === 'role' ? `role-${i % 50}` : kind === 'organisation' ? `org-${i % 20}` : `user-${i % 100}`;
  return { kind, name };
}
const docOf = (i) => {
  const { kind, name } = recipientsOf(i);
  return {
    id: `n-${i}`,
    priority: 5,
    subject: `Notification ${i}`,
    message: `Something happened to order ${i}`,
    recipients: [name],
    recipientsType: kind,
    originator: 'seed',
    type: 'info',
  };
};

/** The kept counts per recipient set, where the build has them: every seeded notification names one recipient. */
async function seedSets(query, tenant) {
  const tables = await query(
    ENGINE === 'sqlite'
      ? `select name from sqlite_master where name = 'notification_recipient_sets'`
      : `select to_regclass('notification_recipient_sets') as name`,
  );
  if (!tables[0]?.name) return;
  const sets = await query(
    `select kind, name, count(*) as n from notification_recipients where tenant_id = '${tenant}' group by kind, name`,
  );
  for (const { kind, name, n } of sets) {
    const key = setKey(kind, name);
    await query(
      `insert into notification_recipient_sets (tenant_id, set_key, notifications) values ('${tenant}', '${key}', ${Number(n)})`,
    );
    await query(
      `insert into notification_set_members (tenant_id, kind, name, set_key) values ('${tenant}', '${kind}', '${name}', '${key}')`,
    );
  }
}

/** `url`: the PostgreSQL database to seed (the bench's own by default; the baseline build's of its own in afterwrite). */
async function seed(url = pgUrl) {
  const now = Date.now() - NOTIFICATIONS;
  const t0 = performance.now();
  if (ENGINE === 'sqlite') {
    const db = new SQLite(join(dataDir, 'svc.sqlite'));
    db.pragma('journal_mode = WAL');
    const tenant = db.prepare(`select id from tenants where name = 'bench'`).get().id;
    const ins = db.prepare(`insert into notifications (tenant_id, id, doc, date, version) values (?, ?, ?, ?, 1)`);
    const rec = db.prepare(
      `insert into notification_recipients (tenant_id, kind, name, date, notification_seq) values (?, ?, ?, ?, ?)`,
    );
    db.transaction(() => {
      for (let i = 0; i < NOTIFICATIONS; i++) {
        const seq = ins.run(tenant, `n-${i}`, JSON.stringify(docOf(i)), now + i).lastInsertRowid;
        const { kind, name } = recipientsOf(i);
        rec.run(tenant, kind, name, now + i, seq);
      }
    })();
    await seedSets(async (q) => {
      const st = db.prepare(q);
      if (st.reader) return st.all();
      st.run();
      return [];
    }, tenant);
    db.exec('analyze');
    db.close();
  } else {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const tenant = (await c.query(`select id from tenants where name = 'bench'`)).rows[0].id;
    await seedPostgresNotifications(c, tenant, NOTIFICATIONS, now);
    await seedSets(async (q) => (await c.query(q)).rows, tenant);
    // As a deployment would be right after a bulk load: no manual ANALYZE (autovacuum is off here).
    await c.end();
  }
  console.log(`${ENGINE}: seeded ${NOTIFICATIONS} notifications in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** SENDS notifications to the role; per send the time until the last subscriber has it. */
async function fanout(writerUrl, subscriberService, label) {
  const openCpu0 = threadCpuMicros(subscriberService.pid);
  const subs = await openSubscribers({
    url: subscriberService.url,
    path: '/cxf/svc-core/notification/stream',
    subscribers: Array.from({ length: SUBSCRIBERS }, () => ({ key: LISTENER_KEY })),
    field: 'subject',
    threads: THREADS,
  });
  const openCpu1 = threadCpuMicros(subscriberService.pid);
  if (process.env.MARK_SENDS) console.log('-- streams open');
  // SETTLE_MS (diagnosis only, default 0): a pause between the streams' opening and the first send.
  if (SETTLE_MS > 0) await new Promise((r) => setTimeout(r, SETTLE_MS));
  const lasts = [];
  /** Per send, CPU (µs, /proc schedstat) from its POST to the next one's: the service's main thread and its other
   * threads (GC helpers, compiler), and the client's (this process, reader threads included). */
  const sendCpu = [];
  const cpuNow = () => ({
    service: threadCpuMicros(subscriberService.pid),
    client: threadCpuMicros(process.pid),
    byName: process.env.CPU_BY_THREAD
      ? { s: threadCpuByTid(subscriberService.pid), c: threadCpuByTid(process.pid) }
      : undefined,
  });
  /** Per send: POST -> its answer, POST -> first subscriber, first -> last subscriber (ms). */
  const answered = [];
  const firsts = [];
  const spreads = [];
  const stat = `/proc/${subscriberService.pid}/stat`;
  const cpu0 = cpuMicros(stat);
  // The client's CPU (this process, its reader threads included) beside the service's: on 2 cores they share them.
  const clientCpu0 = cpuMicros('/proc/self/stat');
  let pauses = 0;
  let cpu;
  let clientCpu;
  let stats;
  try {
    for (let s = 0; s < SENDS; s++) {
      const subject = `send-${s}`;
      sendCpu.push(cpuNow());
      // MARK_SENDS=1: a line per send, in order among the service's own output (its --trace-gc lines, for instance).
      if (process.env.MARK_SENDS) console.log(`-- send ${s}`);
      const t0 = performance.timeOrigin + performance.now();
      const arrived = subs.awaitMarkTimes(subject, () => true);
      const res = await fetch(`${writerUrl}/cxf/svc-core/notification`, {
        method: 'POST',
        headers: { 'x-apikey': WRITER_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ subject, recipients: ['role-fanout'], recipientsType: 'role' }),
      });
      if (res.status !== 200) throw new Error(`add answered ${res.status}`);
      await res.arrayBuffer();
      answered.push(performance.timeOrigin + performance.now() - t0);
      const { first, last } = await arrived;
      lasts.push(last - t0);
      firsts.push(first - t0);
      spreads.push(last - first);
      await new Promise((r) => setTimeout(r, 50));
      pauses += 50;
    }
    sendCpu.push(cpuNow());
    cpu = cpuMicros(stat) - cpu0;
    clientCpu = cpuMicros('/proc/self/stat') - clientCpu0;
    await new Promise((r) => setTimeout(r, 200)); // late second copies would show up by now
    stats = await subs.stats();
  } finally {
    await subs.close();
  }
  if (stats.duplicates || stats.broken)
    throw new Error(`${stats.duplicates} second copies, ${stats.broken} broken chunks`);
  const sorted = [...lasts].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
  const perEvent = cpu / (SENDS * SUBSCRIBERS);
  const clientPerEvent = clientCpu / (SENDS * SUBSCRIBERS);
  console.log(
    `${label}: ${SUBSCRIBERS} subscribers, ${SENDS} sends; add -> last subscriber: median ${median(lasts).toFixed(1)} ms, ` +
      `p99 ${p99.toFixed(1)} ms (medians: add answered ${median(answered).toFixed(1)} ms, first subscriber ` +
      `${median(firsts).toFixed(1)} ms, first -> last ${median(spreads).toFixed(1)} ms); subscribers' service CPU ` +
      `${(cpu / 1000).toFixed(0)} ms = ${perEvent.toFixed(1)} µs per delivered event (client ${clientPerEvent.toFixed(1)} µs); every stream got every send ` +
      `once, whole; heartbeats ${stats.heartbeats}; client's busiest thread ${(stats.clientUtilisation * 100).toFixed(0)}% ` +
      `busy (${pauses} ms idle pauses)`,
  );
  // Which sends make the tail (the first after the streams opened, a collection's pause, ...): each in order.
  console.log(`  add -> last subscriber per send, in order (ms): ${lasts.map((ms) => ms.toFixed(0)).join(', ')}`);
  const perSend = (f) =>
    sendCpu
      .slice(1)
      .map((c, i) => (f(c) - f(sendCpu[i])) / 1000)
      .map((ms) => ms.toFixed(0))
      .join(', ');
  console.log(
    `  the service's CPU while the streams opened: main thread ${((openCpu1.main - openCpu0.main) / 1000).toFixed(0)} ms, ` +
      `other threads ${((openCpu1.others - openCpu0.others) / 1000).toFixed(0)} ms`,
  );
  console.log(
    `  CPU per send, in order (ms, POST to the next POST): service main thread ${perSend((c) => c.service.main)}; ` +
      `service other threads ${perSend((c) => c.service.others)}; client ${perSend((c) => c.client.main + c.client.others)}`,
  );
  // What the first sends cost above the later ones (the tail of goal 7 is the first sends after the streams open).
  if (SENDS >= 8) {
    const series = (f) => sendCpu.slice(1).map((c, i) => (f(c) - f(sendCpu[i])) / 1000);
    const above = (xs, from, to) => {
      const rest = median(xs.slice(5));
      return xs
        .slice(from, to)
        .reduce((n, x) => n + x - rest, 0)
        .toFixed(0);
    };
    const main = series((c) => c.service.main);
    const others = series((c) => c.service.others);
    const client = series((c) => c.client.main + c.client.others);
    console.log(
      `  CPU above the median of sends 6+ (ms): sends 1-3 service main thread ${above(main, 0, 3)}, other threads ` +
        `${above(others, 0, 3)}, client ${above(client, 0, 3)}; sends 4-10 service main thread ${above(main, 3, 10)}, ` +
        `other threads ${above(others, 3, 10)}, client ${above(client, 3, 10)}`,
    );
  }
  // CPU_BY_THREAD=1: the same per thread, the service's (s) and the client's (c), by thread id.
  if (process.env.CPU_BY_THREAD)
    for (const side of ['s', 'c'])
      for (const name of Object.keys(sendCpu[0].byName[side]))
        console.log(`  ${side} ${name}: ${perSend((c) => c.byName[side][name] ?? 0)}`);
  return { median: median(lasts), p99, perEvent, clientPerEvent, first: median(firsts), spread: median(spreads) };
}

/** FANOUT_ROUNDS rounds, each build in turn per round; the medians over rounds and the ratios to the baseline. */
async function fanoutRounds(firstService) {
  const shapes = ENGINE === 'postgres' ? ['one instance', 'writer on A, subscribers on B'] : ['one instance'];
  const results = new Map();
  let service = firstService;
  for (let round = 0; round < FANOUT_ROUNDS; round++)
    for (const build of builds) {
      service ??= await startService({ port: await freePort(), configFile, env: serviceEnv, main: build.main });
      let second;
      try {
        for (const shape of shapes) {
          if (shape !== 'one instance')
            second = await startService({ port: await freePort(), configFile, env: serviceEnv, main: build.main });
          const r = await fanout(
            service.url,
            second ?? service,
            `${ENGINE}, ${shape}, ${build.name}, round ${round + 1}`,
          );
          const key = `${shape}\u0000${build.name}`;
          results.set(key, [...(results.get(key) ?? []), r]);
        }
      } finally {
        await second?.close();
        await service.close();
        service = undefined;
      }
    }
  console.log(
    `\n${ENGINE}, ${SUBSCRIBERS} subscribers, medians of ${FANOUT_ROUNDS} round(s) (load average: ${uptime()})`,
  );
  console.log(
    '| shape | build | p99 ms | median ms | first subscriber ms | first -> last ms | CPU µs per delivered event | client CPU µs |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const shape of shapes)
    for (const build of builds) {
      const rs = results.get(`${shape}\u0000${build.name}`);
      const row = (f) => median(rs.map(f)).toFixed(1);
      console.log(
        `| ${shape} | ${build.name} | ${row((r) => r.p99)} | ${row((r) => r.median)} | ${row((r) => r.first)} | ` +
          `${row((r) => r.spread)} | ${row((r) => r.perEvent)} | ${row((r) => r.clientPerEvent)} |`,
      );
    }
}

const uptime = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Write, then the timed list, alternating for DURATION s; answers the list p50 (ms) and CPU per pair and list (us). */
async function writeThenList({ writeUrl, writeHeaders, listUrl, listHeaders, pid }, seconds = DURATION) {
  const times = [];
  let listCpu = 0;
  const cpu0 = processCpuMicros(pid);
  const until = performance.now() + seconds * 1000;
  let i = 0;
  while (performance.now() < until) {
    const w = await fetch(writeUrl, {
      method: 'POST',
      headers: { ...writeHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ subject: `after-write ${i++}`, recipients: ['role-1'], recipientsType: 'role' }),
    });
    if (w.status !== 200) throw new Error(`write answered ${w.status}`);
    await w.arrayBuffer();
    const t0 = performance.now();
    const c0 = processCpuMicros(pid);
    const r = await fetch(listUrl, { headers: listHeaders });
    if (r.status !== 200) throw new Error(`list answered ${r.status}`);
    await r.arrayBuffer();
    times.push(performance.now() - t0);
    listCpu += processCpuMicros(pid) - c0;
  }
  const n = times.length;
  return { p50: median(times), cpuPerPair: (processCpuMicros(pid) - cpu0) / n, cpuPerList: listCpu / n, n };
}

/** `services`: [name, service] per build; every round runs the bare route, then each build's service in turn. */
async function afterWrite(services) {
  const path = '/cxf/svc-core/notification?limit=50';
  const answer = await (await fetch(`${services[0][1].url}${path}`, { headers: { 'x-apikey': READER_KEY } })).json();
  const baseline = await startBaseline(answer);
  const runs = { bare: [], ...Object.fromEntries(services.map(([name]) => [name, []])) };
  const bareTarget = { writeUrl: `${baseline.url}/w`, listUrl: `${baseline.url}/x`, pid: baseline.pid };
  const target = (svc) => ({
    writeUrl: `${svc.url}/cxf/svc-core/notification`,
    writeHeaders: { 'x-apikey': WRITER_KEY },
    listUrl: `${svc.url}${path}`,
    listHeaders: { 'x-apikey': READER_KEY },
    pid: svc.pid,
  });
  try {
    // Each server first runs the same alternation unmeasured for WARMUP s, so that the rounds compare servers whose
    // code the JIT has compiled (without it, the first rounds measure the service's compiler as much as its lists).
    if (WARMUP > 0) {
      await writeThenList(bareTarget, WARMUP);
      for (const [, svc] of services) await writeThenList(target(svc), WARMUP);
    }
    // The builds' order swaps each round: the same code measured second ran 12% faster (2026-11-28, 12:48 UTC).
    for (let round = 0; round < ROUNDS; round++) {
      runs.bare.push(await writeThenList(bareTarget));
      for (const [name, svc] of round % 2 ? [...services].reverse() : services)
        runs[name].push(await writeThenList(target(svc)));
    }
  } finally {
    await baseline.close();
  }
  const bare = median(runs.bare.map((r) => r.p50));
  console.log(
    `\n${ENGINE}, ${NOTIFICATIONS} notifications, reader sees ${answer.total}+, first list after a write, limit=50 (one client, ${ROUNDS} rounds x ${DURATION} s; load average ${uptime()})`,
  );
  console.log(
    '| scenario | list p50 ms (median) | vs bare route | CPU us per list | CPU us per write+list | pairs per round |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const [name, rs, p50] of [
    ['bare route (POST, then GET of the same list JSON)', runs.bare, bare],
    ...services.map(([name]) => [
      `${name}: add to role-1, then GET ?limit=50 (X-APIKey)`,
      runs[name],
      median(runs[name].map((r) => r.p50)),
    ]),
  ]) {
    const pair = median(rs.map((r) => r.cpuPerPair)).toFixed(0);
    const list = median(rs.map((r) => r.cpuPerList)).toFixed(0);
    const ratio = `${((bare / p50) * 100).toFixed(0)}%`;
    console.log(`| ${name} | ${p50.toFixed(2)} | ${ratio} | ${list} | ${pair} | ${rs.map((r) => r.n).join(', ')} |`);
  }
  if (services.length === 2) {
    const [[a], [b]] = services;
    for (const what of ['cpuPerList', 'cpuPerPair', 'p50']) {
      const ratios = runs[a].map((r, i) => r[what] / runs[b][i][what]);
      console.log(
        `${what} ${a} / ${b} per round: ${ratios.map((x) => x.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)})`,
      );
    }
  }
}

const service = await startService({ port: await freePort(), configFile, env: serviceEnv, main: MAIN });
try {
  if (SCENARIOS.has('list') || SCENARIOS.has('afterwrite')) {
    await service.close();
    await seed();
  }
  if (SCENARIOS.has('list')) {
    for (const [variant, file] of [
      ['list answers kept until the next write', configFile, 'kept'],
      ['every list read from the database', uncachedConfigFile, 'db'],
    ].filter(([, , name]) => LIST_VARIANTS.has(name))) {
      Object.assign(
        service,
        await startService({ port: await freePort(), configFile: file, env: serviceEnv, main: MAIN }),
      );
      for (const limit of LIMITS) {
        const url = `${service.url}/cxf/svc-core/notification?limit=${limit}`;
        const answer = await (await fetch(url, { headers: { 'x-apikey': READER_KEY } })).json();
        const baseline = await startBaseline(answer);
        try {
          const results = await compare(
            {
              'bare route (same list JSON)': { url: `${baseline.url}/x` },
              [`GET /cxf/svc-core/notification?limit=${limit} (X-APIKey)`]: {
                url,
                headers: { 'x-apikey': READER_KEY },
              },
            },
            { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS },
          );
          printTable(
            `${ENGINE}, ${NOTIFICATIONS} notifications, reader sees ${answer.total}, limit=${limit}, ${variant} (${CONNECTIONS} connections, ${ROUNDS} rounds x ${DURATION} s)`,
            results,
            'bare route (same list JSON)',
          );
        } finally {
          await baseline.close();
        }
      }
      await service.close();
    }
  }
  if (SCENARIOS.has('afterwrite')) {
    // The baseline build's service on a copy of the seeded SQLite file (one process per file); on PostgreSQL on a
    // database of its own, migrated by that build and seeded alike: a build refuses a database that a newer one has
    // migrated further, so the two cannot share one as soon as this build adds a migration.
    let baseEnv = serviceEnv;
    if (builds.length > 1 && ENGINE === 'sqlite') {
      const copy = join(root, 'data-baseline');
      mkdirSync(copy);
      copyFileSync(join(dataDir, 'svc.sqlite'), join(copy, 'svc.sqlite'));
      baseEnv = { SVC_DATA_DIR: copy };
    }
    if (builds.length > 1 && ENGINE === 'postgres') {
      baseDb = await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_notif_base');
      baseEnv = { DATABASE_URL: baseDb.url };
      await (await startService({ port: await freePort(), configFile, env: baseEnv, main: builds[1].main })).close();
      await seed(baseDb.url);
    }
    Object.assign(service, await startService({ port: await freePort(), configFile, env: serviceEnv, main: MAIN }));
    const other =
      builds.length > 1
        ? await startService({ port: await freePort(), configFile, env: baseEnv, main: builds[1].main })
        : undefined;
    try {
      await afterWrite([['this build', service], ...(other ? [[builds[1].name, other]] : [])]);
    } finally {
      await other?.close();
    }
    await service.close();
  }
  if (SCENARIOS.has('list') || SCENARIOS.has('afterwrite')) {
    Object.assign(service, await startService({ port: await freePort(), configFile, env: serviceEnv, main: MAIN }));
  }
  if (SCENARIOS.has('fanout')) {
    // The first round's service is the one running (closed by fanoutRounds); each later one starts afresh.
    await fanoutRounds(service);
  }
} finally {
  await service.close();
  rmSync(root, { recursive: true, force: true });
  await benchDb?.drop();
  await baseDb?.drop();
}
