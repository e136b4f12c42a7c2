// Issue 47 goal 1: what the statistics upkeep's ANALYZE of each storage table costs the PostgreSQL server (CPU of the
// backend from /proc/<pid>/schedstat around each ANALYZE, median of REPEAT), on a store of ITEMS items of the storage
// search benchmark's shape created through the service (this checkout's dist, in process), and the same for
// storage_items with its `doc` column's statistics off (SET STATISTICS 0), which no statement filters or joins on.
// Usage: npm run build && ITEMS=2500 node bench/storage-analyze-cost.mjs
// Env: PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres); ITEMS (2500); REPEAT (7).
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { createSearchItemsInProcess } from './search-item.mjs';
import { createBenchDatabase, median } from './lib.mjs';

const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ITEMS = Number(process.env.ITEMS ?? 2500);
const REPEAT = Number(process.env.REPEAT ?? 7);

const database = await createBenchDatabase(PG_ADMIN_URL, 'creates_analyze');
try {
  await createSearchItemsInProcess(database.url, ITEMS);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const pid = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
  const cpuNs = () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  const tables = (
    await client.query(
      `select relname, n_live_tup from pg_stat_user_tables where relname like 'storage%' order by relname`,
    )
  ).rows;
  const cost = async (table) => {
    const runs = [];
    for (let n = 0; n < REPEAT; n++) {
      const before = cpuNs();
      await client.query(`analyze ${table}`);
      runs.push((cpuNs() - before) / 1000);
    }
    return Math.round(median(runs));
  };
  console.log(`${ITEMS} items; server CPU of one ANALYZE, us (median of ${REPEAT})`);
  console.log('| table | rows | ANALYZE |');
  console.log('|---|---|---|');
  let sum = 0;
  for (const { relname, n_live_tup } of tables) {
    const us = await cost(relname);
    sum += us;
    console.log(`| ${relname} | ${n_live_tup} | ${us} |`);
  }
  console.log(`| all | | ${sum} |`);
  await client.query('alter table storage_items alter column doc set statistics 0');
  console.log(`| storage_items, doc's statistics off | | ${await cost('storage_items')} |`);
  await client.query('alter table storage_items alter column doc set statistics -1');
  console.log(`| storage_items again, doc's statistics on | | ${await cost('storage_items')} |`);
  await client.end();
} finally {
  await database.drop();
}
