// Issue 47, goal 4 on PostgreSQL: where the first notification list after a write spends its time, per statement.
// Usage: npm run build && node bench/notifications-pg-profile.mjs
// Env:   PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres; a database of its own, dropped afterwards);
//        NOTIFICATIONS (100000, seeded as bench/notifications.mjs seeds them: the reader sees about 5.6%); PAIRS (300 a
//        round and build); ROUNDS (1); BASELINE_DIR (a built checkout: its service takes its turn in every round, on the
//        same database, and the ratios per round are printed);
//        MAIN (the service build, default dist/main.js); PG_LOG (the server's log file, default
//        /var/log/postgresql/postgresql-15-main.log: readable by this user); EXPLAIN=1 also logs the plans
//        (auto_explain, with ANALYZE and BUFFERS: slower, only for reading the plans); PROFILE=1: a V8 CPU profile of the
//        service, its samples inside the lists' windows (client clock = the profile's, both CLOCK_MONOTONIC) summed by
//        function (self time; TOP, default 30, of them); KEEP=1 leaves the database (its address printed); REPLAYS=n: each
//        build's list statement, as its service last ran it (text and values from the log), run n times a round on a
//        connection of its own, builds alternated for REPLAY_ROUNDS (41) rounds (short
//        turns, many rounds: at load 15 a turn's CPU varies by a fifth): the backend's CPU a run (schedstat) and
//        this process's (the pg driver's send and parse), apart from HTTP and the service.
// Runs PAIRS pairs of (add to role-1, then GET ?limit=50) one after the other, with log_min_duration_statement = 0 on
// its database, and prints per statement of the list's backend: count per list, median duration (the server's),
// and the service's and the list backends' CPU per list (/proc schedstat, ns, all threads / processes).
import {
  readdirSync,
  readFileSync,
  statSync,
  openSync,
  readSync,
  closeSync,
  writeFileSync,
  mkdtempSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createBenchDatabase, freePort, median, processCpuMicros, profileFunctionName, startService } from './lib.mjs';
import { seedPostgresNotifications, setKey } from './notification-seed.mjs';

const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NOTIFICATIONS = Number(process.env.NOTIFICATIONS ?? 100_000);
const PAIRS = Number(process.env.PAIRS ?? 300);
const PG_LOG = process.env.PG_LOG ?? '/var/log/postgresql/postgresql-15-main.log';
const READER_KEY = 'k-bench-notif-reader-0123';
const WRITER_KEY = 'k-bench-notif-writer-0123';

const root = mkdtempSync(join(tmpdir(), 'svc-bench-notif-prof-'));
const profileDir = join(root, 'profile');
const TOP = Number(process.env.TOP ?? 30);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const REPLAYS = Number(process.env.REPLAYS ?? 0);
/** The services started for the builds (closed at the end). */
const started = [];
/** The lists' windows, [start, end] in microseconds of CLOCK_MONOTONIC. */
const marks = [];
const configFile = join(root, 'config.json');
writeFileSync(
  configFile,
  JSON.stringify({
    tenants: [
      {
        name: 'bench',
        apiKeys: [
          { name: 'reader', key: READER_KEY, roles: ['role-1', 'role-2', 'role-3'], organisations: ['org-1', 'org-2'] },
          { name: 'writer', key: WRITER_KEY, roles: ['NOTIFICATION_ADMIN'] },
        ],
      },
    ],
  }),
);
const db = await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_notif_prof');
const dbName = new URL(db.url).pathname.slice(1);
const admin = async (statement) => {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    return (await c.query(statement)).rows;
  } finally {
    await c.end();
  }
};

/** bench/notifications.mjs's seed on PostgreSQL: the notifications, their recipients and the kept counts per set. */
async function seed() {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  const tenant = (await c.query(`select id from tenants where name = 'bench'`)).rows[0].id;
  await seedPostgresNotifications(c, tenant, NOTIFICATIONS, Date.now() - NOTIFICATIONS);
  const sets = await c.query(
    `select kind, name, count(*) as n from notification_recipients where tenant_id = $1 group by kind, name`,
    [tenant],
  );
  for (const { kind, name, n } of sets.rows) {
    const key = setKey(kind, name);
    await c.query(`insert into notification_recipient_sets (tenant_id, set_key, notifications) values ($1, $2, $3)`, [
      tenant,
      key,
      Number(n),
    ]);
    await c.query(`insert into notification_set_members (tenant_id, kind, name, set_key) values ($1, $2, $3, $4)`, [
      tenant,
      kind,
      name,
      key,
    ]);
  }
  await c.end();
}

const backendCpu = (pids) =>
  pids.reduce((sum, pid) => {
    try {
      return sum + Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
    } catch {
      return sum;
    }
  }, 0);

const logFrom = (offset) => {
  const size = statSync(PG_LOG).size;
  const buf = Buffer.alloc(size - offset);
  const fd = openSync(PG_LOG, 'r');
  readSync(fd, buf, 0, buf.length, offset);
  closeSync(fd);
  return buf.toString('utf8');
};

let service = await startService({
  port: await freePort(),
  configFile,
  env: { DATABASE_URL: db.url },
  main: process.env.MAIN,
});
try {
  await service.close();
  await seed();
  await admin(`ALTER DATABASE ${dbName} SET log_min_duration_statement = 0`);
  if (process.env.EXPLAIN === '1') {
    await admin(`ALTER DATABASE ${dbName} SET session_preload_libraries = 'auto_explain'`);
    await admin(`ALTER DATABASE ${dbName} SET auto_explain.log_min_duration = 0`);
    await admin(`ALTER DATABASE ${dbName} SET auto_explain.log_analyze = on`);
    await admin(`ALTER DATABASE ${dbName} SET auto_explain.log_buffers = on`);
  }
  // One service per build, each with its own application_name: its backends' CPU is read apart.
  const builds = [
    { name: 'this build', main: process.env.MAIN },
    ...(process.env.BASELINE_DIR
      ? [{ name: `baseline ${process.env.BASELINE_DIR}`, main: join(process.env.BASELINE_DIR, 'dist/main.js') }]
      : []),
  ];
  for (const [i, build] of builds.entries()) {
    if (process.env.PROFILE === '1' && i === 0)
      process.env.BENCH_NODE_ARGS = `--cpu-prof --cpu-prof-interval=100 --cpu-prof-dir=${profileDir}`;
    else delete process.env.BENCH_NODE_ARGS;
    build.app = `svc-notif-prof-${i}`;
    build.service = await startService({
      port: await freePort(),
      configFile,
      env: { DATABASE_URL: db.url, PGAPPNAME: build.app },
      main: build.main,
    });
    build.runs = [];
    started.push(build.service);
  }
  service = builds[0].service;
  const pair = async (url, i) => {
    const w = await fetch(`${url}/cxf/svc-core/notification`, {
      method: 'POST',
      headers: { 'x-apikey': WRITER_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ subject: `after-write ${i}`, recipients: ['role-1'], recipientsType: 'role' }),
    });
    if (w.status !== 200) throw new Error(`write answered ${w.status}`);
    await w.arrayBuffer();
  };
  // Warm up: the connections open, the statements are prepared and PostgreSQL has chosen its plans.
  for (const { service: s } of builds)
    for (let i = 0; i < 20; i++) {
      await pair(s.url, i);
      await (
        await fetch(`${s.url}/cxf/svc-core/notification?limit=50`, { headers: { 'x-apikey': READER_KEY } })
      ).arrayBuffer();
    }
  // pg's pool closes a connection idle for 10 s (the other build's turn): the backends are looked up at each turn.
  const backendsOf = async (build) =>
    (await admin(`select pid from pg_stat_activity where application_name = '${build.app}'`)).map((r) => r.pid);
  /** The backends that served this build's lists (the statement log's lines are theirs). */
  const pids = [];
  const logStart = statSync(PG_LOG).size;
  for (let round = 0; round < ROUNDS; round++)
    for (const [b, build] of builds.entries()) {
      const { service: s } = build;
      const listUrl = `${s.url}/cxf/svc-core/notification?limit=50`;
      await pair(s.url, 0);
      build.pids = await backendsOf(build);
      if (b === 0) pids.push(...build.pids);
      build.seen = [...(build.seen ?? []), ...build.pids];
      let nodeCpu = 0;
      let pgCpu = 0;
      const times = [];
      for (let i = 0; i < PAIRS; i++) {
        await pair(s.url, i + 20);
        const c0 = processCpuMicros(s.pid);
        const b0 = backendCpu(build.pids);
        const t0 = performance.now();
        const h0 = process.hrtime.bigint();
        const r = await fetch(listUrl, { headers: { 'x-apikey': READER_KEY } });
        if (r.status !== 200) throw new Error(`list answered ${r.status}`);
        await r.arrayBuffer();
        times.push(performance.now() - t0);
        nodeCpu += processCpuMicros(s.pid) - c0;
        pgCpu += backendCpu(build.pids) - b0;
        if (b === 0) marks.push([Number(h0 / 1000n), Number(process.hrtime.bigint() / 1000n)]);
      }
      build.runs.push({ p50: median(times), node: nodeCpu / PAIRS, pg: pgCpu / PAIRS });
    }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(
    `\nPostgreSQL, ${NOTIFICATIONS} notifications, ${ROUNDS} rounds x ${PAIRS} pairs a build (add to role-1, then GET ?limit=50); load average ${load}`,
  );
  console.log("| build | list p50 ms | service CPU us a list | its backends' CPU us a list |");
  console.log('|---|---|---|---|');
  for (const { name, runs } of builds)
    console.log(
      `| ${name} | ${median(runs.map((r) => r.p50)).toFixed(2)} | ${median(runs.map((r) => r.node)).toFixed(0)} | ${median(runs.map((r) => r.pg)).toFixed(0)} |`,
    );
  if (builds.length === 2)
    for (const what of ['p50', 'node', 'pg']) {
      const ratios = builds[0].runs.map((r, i) => r[what] / builds[1].runs[i][what]);
      console.log(
        `${what} this / baseline per round: ${ratios.map((x) => x.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)})`,
      );
    }
  // The statements of the lists: the log's lines between the pairs are the writes' and the lists' together; the lists'
  // are told apart by their text (selects reading notification_recipients or the change count).
  const log = logFrom(logStart);
  const entries = [
    ...log.matchAll(
      /\[(\d+)\] \S* ?LOG: {2}duration: ([\d.]+) ms {2}(?:(parse|bind|execute) [^:]*|(statement)): ([^\n]*)/g,
    ),
  ];
  const stats = new Map();
  for (const [, pid, ms, extended, simple, text] of entries) {
    const phase = extended ?? simple;
    if (!pids.includes(Number(pid))) continue;
    const key = `${phase} ${text.slice(0, 110)}`;
    if (!stats.has(key)) stats.set(key, []);
    stats.get(key).push(Number(ms));
  }
  console.log('| phase and statement (pairs: the add and the list) | per pair | median ms | sum ms per pair |');
  console.log('|---|---|---|---|');
  for (const [key, ms] of [...stats].sort((a, b) => b[1].length - a[1].length)) {
    const sum = ms.reduce((a, b) => a + b, 0);
    console.log(
      `| ${key} | ${(ms.length / PAIRS).toFixed(2)} | ${median(ms).toFixed(3)} | ${(sum / PAIRS).toFixed(3)} |`,
    );
  }
  // The same list without a write before it: answered from the kept answer (the change count read, the kept text
  // sent), and as a 304 (the change count read, no body): what the route costs besides the list's statement.
  const listUrl = `${service.url}/cxf/svc-core/notification?limit=50`;
  let tag = '';
  for (const [what, conditional] of [
    ['kept answer (no write before)', false],
    ['304 (If-None-Match, no write before)', true],
  ]) {
    const spent = [];
    let cpu = 0;
    for (let i = 0; i < PAIRS; i++) {
      const c0 = processCpuMicros(service.pid);
      const t0 = performance.now();
      const r = await fetch(listUrl, {
        headers: { 'x-apikey': READER_KEY, ...(conditional ? { 'if-none-match': tag } : {}) },
      });
      await r.arrayBuffer();
      spent.push(performance.now() - t0);
      cpu += processCpuMicros(service.pid) - c0;
      tag = r.headers.get('etag') ?? tag;
      if (r.status !== (conditional ? 304 : 200)) throw new Error(`${what} answered ${r.status}`);
    }
    console.log(`${what}: p50 ${median(spent).toFixed(2)} ms; service CPU ${(cpu / PAIRS).toFixed(0)} us a list`);
  }
  if (REPLAYS > 0) await replay(builds, log);
  if (process.env.EXPLAIN === '1') {
    const plans = [...log.matchAll(/LOG: {2}duration: [\d.]+ ms {2}plan:\n([\s\S]*?)(?=\n\d{4}-\d\d-\d\d )/g)];
    const list = plans.filter((p) => p[1].includes('notification_recipients r')).at(-1);
    if (list) console.log(list[1]);
  }
} finally {
  await service.close();
  for (const s of started.slice(1)) await s.close();
  await admin(`ALTER DATABASE ${dbName} RESET ALL`).catch(() => {});
  if (process.env.KEEP === '1') console.log(`kept: ${db.url}`);
  else await db.drop();
}
if (process.env.PROFILE === '1') profileReport();
rmSync(root, { recursive: true, force: true });

/** Self time by function of the service's samples inside the lists' windows (`marks`), per list. */
function profileReport() {
  const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile') && f.includes(`.${service.pid}.`));
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const nameOf = profileFunctionName;
  const self = new Map();
  let busy = 0;
  let t = profile.startTime;
  let m = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    while (m < marks.length && marks[m][1] < t) m++;
    if (m >= marks.length) break;
    if (t < marks[m][0]) continue;
    const node = byId.get(profile.samples[i]);
    if (node.callFrame.functionName === '(idle)') continue;
    const us = profile.timeDeltas[i + 1] ?? 0;
    busy += us;
    const name = nameOf(node);
    self.set(name, (self.get(name) ?? 0) + us);
  }
  console.log(`\nlists: main thread busy ${Math.round(busy / marks.length)} us a list (profile samples, wall time)`);
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    console.log(
      `${((100 * us) / busy).toFixed(1).padStart(5)}%  ${String(Math.round(us / marks.length)).padStart(5)} us  ${name}`,
    );
}

/** Replays each build's last list statement (from the log) REPLAYS times a round, alternated; CPU a run, both sides. */
async function replay(builds, log) {
  const lines = log.split('\n');
  const runs = [];
  for (const build of builds) {
    let text;
    let values;
    for (let i = lines.length - 2; i >= 0 && !text; i--) {
      const m = lines[i].match(
        /\[(\d+)\] \S* ?LOG: {2}duration: [\d.]+ ms {2}execute svc_\w+: (select "t"\."changes".*)$/,
      );
      if (!m || !build.seen.includes(Number(m[1])) || !lines[i + 1].includes('DETAIL:  parameters:')) continue;
      text = m[2];
      values = [...lines[i + 1].matchAll(/\$\d+ = '((?:[^']|'')*)'/g)].map((v) => v[1].replaceAll("''", "'"));
    }
    if (!text) throw new Error(`no list statement of ${build.name} in the log`);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const pid = (await c.query('select pg_backend_pid() as pid')).rows[0].pid;
    const query = { name: 'list', text, values };
    for (let i = 0; i < 10; i++) await c.query(query);
    runs.push({ name: build.name, c, pid, query, backend: [], client: [], params: values.length });
  }
  const rounds = Number(process.env.REPLAY_ROUNDS ?? 41);
  for (let round = 0; round < rounds; round++)
    for (const r of runs) {
      const b0 = backendCpu([r.pid]);
      const u0 = process.cpuUsage();
      for (let i = 0; i < REPLAYS; i++) await r.c.query(r.query);
      const u = process.cpuUsage(u0);
      r.backend.push((backendCpu([r.pid]) - b0) / REPLAYS);
      r.client.push((u.user + u.system) / REPLAYS);
    }
  console.log(
    `\nThe list statement replayed, ${rounds} rounds x ${REPLAYS} runs a build (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
  );
  console.log('| build | parameters | backend CPU us a run | pg driver CPU us a run |');
  console.log('|---|---|---|---|');
  for (const r of runs) {
    console.log(`| ${r.name} | ${r.params} | ${median(r.backend).toFixed(0)} | ${median(r.client).toFixed(0)} |`);
    await r.c.end();
  }
  if (runs.length === 2) {
    const ratios = runs[0].backend.map((x, i) => x / runs[1].backend[i]);
    const below = ratios.filter((x) => x < 1).length;
    console.log(
      `backend CPU this / baseline per round: median ${median(ratios).toFixed(3)}, below 1 in ${below} of ${ratios.length}`,
    );
  }
}
