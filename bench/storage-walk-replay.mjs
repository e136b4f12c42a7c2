// Issue 47 goal 1 on PostgreSQL: what the server spends on a walked list's one statement, and on variants of it. The
// service loads the search benchmark's store (bench/search-item.mjs) in a database of its own and answers the goal's
// list (status = open, sort value.n DESC, page 100, the half reader) with every statement it sends logged
// (bench/pg-statement-log.mjs); the last walk statement is then replayed as the service runs it (prepared, rows as
// arrays, after more than five runs: the generic plan) on one connection per variant, in alternated blocks, and the
// backend's CPU read from /proc/<pid>/schedstat around each block. Prints EXPLAIN (ANALYZE, BUFFERS) of it first.
// Usage: npm run build && node bench/storage-walk-replay.mjs
// Env:   PG_ADMIN_URL; ITEMS (10000); RUNS (a block, 100); ROUNDS (10); BASELINE_DIR: a built checkout whose walk
//        statement for the same list is replayed beside, on a database of its own that it loaded with the same items
//        (a build's schema may hold migrations the other does not know, or store the rows otherwise);
//        VARIANTS: comma-separated files, each the text of a statement taking the same parameters ($1...), replayed
//        beside too; KEEP_SQL: a file to copy this build's walk statement to (text and values, JSON), to write variants
//        from.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { loadSearchItems } from './search-item.mjs';
import { createBenchDatabase, freePort, median, ROOT, startService, writeBenchConfig } from './lib.mjs';

const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ITEMS = Number(process.env.ITEMS ?? 10000);
const RUNS = Number(process.env.RUNS ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const VARIANTS = (process.env.VARIANTS ?? '').split(',').filter(Boolean);
const BASELINE_DIR = process.env.BASELINE_DIR;
const KEYS = { writer: 'k-walkreplay-writer-0123456789', half: 'k-walkreplay-half-0123456789' };

const { root, configFile } = writeBenchConfig('svc-bench-walkreplay-', [
  { name: 'writer', key: KEYS.writer, roles: ['writer'] },
  { name: 'half', key: KEYS.half, roles: ['half-0'] },
]);
const log = join(mkdtempSync(join(tmpdir(), 'svc-bench-walkreplay-log-')), 'statements.jsonl');
const db = await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_walkreplay');
const baseDb = BASELINE_DIR ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_walkreplay_base') : undefined;
const clients = [];
try {
  process.env.BENCH_NODE_ARGS = `${process.env.BENCH_NODE_ARGS ?? ''} --import ${join(ROOT, 'bench/pg-statement-log.mjs')}`;
  /** The walk statement (text and values) of the goal's list as the build at `main` sends it, its items loaded first. */
  const captureWalk = async (main, database) => {
    writeFileSync(log, '');
    const service = await startService({
      port: await freePort(),
      configFile,
      env: { DATABASE_URL: database.url, SVC_STATEMENT_LOG: log },
      main,
    });
    try {
      const pool = new Pool(service.url, { connections: 50 });
      await loadSearchItems(pool, KEYS.writer, ITEMS);
      const params = new URLSearchParams({
        filter: JSON.stringify([{ property: 'value.status', operator: 'eq', value: 'open' }]),
        sort: 'value.n|DESC',
        limit: '100',
      });
      for (let i = 0; i < 3; i++) {
        const res = await pool.request({
          method: 'GET',
          path: `/cxf/svc-core/storage/store/search?${params}`,
          headers: { 'x-apikey': KEYS.half },
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`list: ${res.statusCode}`);
      }
      await pool.close();
    } finally {
      await service.close();
    }
    const walk = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((s) => s.text.includes('q__walked_keys'))
      .at(-1);
    if (!walk) throw new Error('the list ran no walk statement');
    return walk;
  };
  const walk = await captureWalk(join(ROOT, 'dist/main.js'), db);
  const baseline = BASELINE_DIR ? await captureWalk(join(BASELINE_DIR, 'dist/main.js'), baseDb) : undefined;
  if (process.env.KEEP_SQL) writeFileSync(process.env.KEEP_SQL, JSON.stringify(walk));
  const statements = [
    ['this build', walk, db],
    ...(baseline ? [['BASELINE_DIR', baseline, baseDb]] : []),
    ...VARIANTS.map((f) => [f, { text: readFileSync(f, 'utf8'), values: walk.values }, db]),
  ];
  for (const [name, { text, values }, database] of statements) {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const query = { name: 'walk', text, values, rowMode: 'array' };
    for (let i = 0; i < 10; i++) await client.query(query);
    clients.push({ name, client, pid, query, runs: [], rows: (await client.query(query)).rows.length });
  }
  // The plan the service's runs get after their fifth: the generic one (PREPARE, then EXECUTE with the values).
  const explainer = clients[0].client;
  await explainer.query('SET plan_cache_mode = force_generic_plan');
  await explainer.query(`PREPARE walk_explained AS ${walk.text}`);
  const literals = walk.values.map((v) => (typeof v === 'number' ? String(v) : explainer.escapeLiteral(String(v))));
  const explained = await explainer.query(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE walk_explained(${literals.join(', ')})`);
  await explainer.query('DEALLOCATE walk_explained');
  await explainer.query('RESET plan_cache_mode');
  console.log(explained.rows.map((r) => r['QUERY PLAN']).join('\n'));
  const cpu = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of round % 2 ? clients : [...clients].reverse()) {
      const before = cpu(c.pid);
      for (let i = 0; i < RUNS; i++) await c.client.query(c.query);
      c.runs.push((cpu(c.pid) - before) / RUNS);
    }
  }
  console.log(`\n${ITEMS} items, the walk statement, ${ROUNDS} alternated blocks of ${RUNS} runs: backend CPU a run`);
  for (const c of clients)
    console.log(
      `${c.name}: ${Math.round(median(c.runs))} µs (${c.rows} rows; blocks: ${c.runs.map(Math.round).join(', ')})` +
        (c === clients[0]
          ? ''
          : `; to this build, median of the pairs ${median(c.runs.map((r, i) => r / clients[0].runs[i])).toFixed(3)}`),
    );
} finally {
  for (const c of clients) await c.client.end();
  await db.drop();
  await baseDb?.drop();
  rmSync(root, { recursive: true, force: true });
  rmSync(join(log, '..'), { recursive: true, force: true });
}
