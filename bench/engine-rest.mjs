// Issue 13: the engine's role-matched task list for a process user by token and by Basic, against a bare route in
// the same run. Usage: npm run build && node bench/engine-rest.mjs
// Env: ENGINE=sqlite|postgres (default sqlite); PG_ADMIN_URL; TASKS (10000); ROLES (100); ROUNDS (3), DURATION (5 s),
//      CONNECTIONS (50). Tasks are seeded through SQL in the repository's shape, one role each, cycling over ROLES; the
//      process user (a platform user of tenant default) holds 2 of them, so it gets 2% of the tasks.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { compare, printTable, startBaseline, startService, createBenchDatabase, freePort } from './lib.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TASKS = Number(process.env.TASKS ?? 10_000);
const ROLES = Number(process.env.ROLES ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const DURATION = Number(process.env.DURATION ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);

const root = mkdtempSync(join(tmpdir(), 'svc-bench-engine-'));
const dataDir = join(root, 'data');
const configFile = join(root, 'config.json');
writeFileSync(
  configFile,
  JSON.stringify({
    identity: { bootstrapAdminPassword: 'admin-pass-1' },
    tenants: [{ name: 'default', users: [{ loginName: 'pat', password: 'pat-pass-1', roles: ['role-7', 'role-42'] }] }],
    engine: {
      users: [{ name: 'dm', password: 'dm-pass-1', roles: [] }],
      processUserServer: { type: 'platform', tenant: 'default' },
    },
  }),
);
const benchDb = ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_engine') : undefined;
const pgUrl = benchDb?.url;
const serviceEnv = ENGINE === 'postgres' ? { DATABASE_URL: pgUrl } : { SVC_DATA_DIR: dataDir };

const docOf = (i) =>
  JSON.stringify({
    id: randomUUID(),
    name: `Task ${i}`,
    roles: [`role-${i % ROLES}`],
    data: { order: i, step: 'approve' },
  });

async function seed() {
  const now = Date.now();
  if (ENGINE === 'sqlite') {
    const db = new SQLite(join(dataDir, 'svc.sqlite'));
    const item = db.prepare(
      `insert into engine_items (scope, kind, id, doc, created_on, created_by) values ('default', 'task', ?, ?, ?, 'seed')`,
    );
    const role = db.prepare(
      `insert into engine_item_roles (scope, kind, role, item_seq) values ('default', 'task', ?, ?)`,
    );
    db.transaction(() => {
      for (let i = 0; i < TASKS; i++) {
        const doc = docOf(i);
        const seq = item.run(JSON.parse(doc).id, doc, now + i).lastInsertRowid;
        role.run(`role-${i % ROLES}`, seq);
      }
    })();
    db.exec('analyze');
    db.close();
  } else {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    for (let i = 0; i < TASKS; i++) {
      const doc = docOf(i);
      const { rows } = await c.query(
        `insert into engine_items (scope, kind, id, doc, created_on, created_by) values ('default', 'task', $1, $2, $3, 'seed') returning seq`,
        [JSON.parse(doc).id, doc, now + i],
      );
      await c.query(`insert into engine_item_roles (scope, kind, role, item_seq) values ('default', 'task', $1, $2)`, [
        `role-${i % ROLES}`,
        rows[0].seq,
      ]);
    }
    // Statistics as after the service's own upkeep (set NO_ANALYZE=1 for the statistics of a bulk load, autovacuum off).
    if (process.env.NO_ANALYZE !== '1') await c.query('analyze engine_items; analyze engine_item_roles');
    await c.end();
  }
}

let service = await startService({ port: await freePort(), configFile, env: serviceEnv });
try {
  await service.close();
  await seed();
  service = await startService({ port: await freePort(), configFile, env: serviceEnv });
  const login = await fetch(`${service.url}/cxf/svc-core/authentication`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'tenantname=default&username=pat&password=pat-pass-1',
  });
  const cookie = login.headers.get('set-cookie').split(';')[0];
  const csrf = (await login.json()).principals['X-Csrf-Token'][0];
  const { access_token: token } = await (
    await fetch(`${service.url}/cxf/svc-core/authentication/token`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrf },
    })
  ).json();
  const url = `${service.url}/engine/rest/tasks?userType=processUser`;
  const answer = await (await fetch(url, { headers: { 'x-auth-token': `Bearer ${token}` } })).json();
  const baseline = await startBaseline(answer);
  try {
    const results = await compare(
      {
        'bare route (same task list JSON)': { url: `${baseline.url}/x` },
        'GET /engine/rest/tasks, process user by token': { url, headers: { 'x-auth-token': `Bearer ${token}` } },
        'GET /engine/rest/tasks, process user by Basic': {
          url,
          headers: { authorization: `Basic ${Buffer.from('pat:pat-pass-1').toString('base64')}` },
        },
      },
      { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS },
    );
    printTable(
      `${ENGINE}, ${TASKS} tasks over ${ROLES} roles, the user holds 2 (${answer.length} tasks), ${CONNECTIONS} connections, ${ROUNDS} rounds x ${DURATION} s`,
      results,
      'bare route (same task list JSON)',
    );
  } finally {
    await baseline.close();
  }
} finally {
  await service.close();
  rmSync(root, { recursive: true, force: true });
  await benchDb?.drop();
}
