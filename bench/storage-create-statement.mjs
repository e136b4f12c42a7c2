// Issue 47 goal 1: the PostgreSQL server's CPU for one batch of creates' statement (StorageSql.createItems' function),
// with its parts varied. The service (this checkout's dist, in process) creates CREATES items of the storage search
// benchmark's shape, 50 in flight, on a database of its own; the last batch call of BATCH or more items is kept (its
// values; its first statement, the items and their rows, read from the function in pg_proc). That statement is then
// run again and again on one connection, each run in a transaction rolled back (so every run meets the same tables),
// its items under fresh ids, and the backend's CPU for the statement alone is read from `/proc/<pid>/schedstat` around
// it. Variants, alternated in blocks of RUNS runs, ROUNDS times, each block after its setup (outside the timed part):
//   trigger:   the statement as captured, with the value counts' insert trigger (storage-011, as main has it);
//   statement: no insert trigger; the statement counts its value rows itself, grouped from the value rows' insert's
//              RETURNING (a CTE `vct` added here, the upsert the trigger runs; tried on branch creates, 2026-11-28);
//   uncounted: neither (what counting costs at all; the kept totals are then wrong: a reference only);
//   call:      the service's whole call of storage_create_items (storage-016): the statement, then the feed event.
// Prints the median CPU a run and a create of each variant. Usage: npm run build && node bench/storage-create-statement.mjs
// Env: PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres); CREATES (1000); BATCH (40); RUNS (20);
//      ROUNDS (5); EXPLAIN=1 prints the statement's EXPLAIN (ANALYZE, BUFFERS) first (each CTE's insert and the count
//      trigger timed apart).
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { createSearchItemsInProcess } from './search-item.mjs';
import { createBenchDatabase, median } from './lib.mjs';

const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CREATES = Number(process.env.CREATES ?? 1000);
const BATCH = Number(process.env.BATCH ?? 40);
const RUNS = Number(process.env.RUNS ?? 20);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const EXPLAIN = process.env.EXPLAIN === '1';

const database = await createBenchDatabase(PG_ADMIN_URL, 'creates_statement');
try {
  // The batch's call as the service sends it (storage_create_items, storage-016): the driver's query calls watched for
  // its text. The statement measured is the function's first, the items and their rows, read from the function itself
  // (its records the call's first value); `call` runs the whole call, the feed event with it.
  let captured;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    const values = typeof config === 'string' ? rest[0] : config?.values;
    if (typeof text === 'string' && /^select item_n\b/.test(text) && Array.isArray(values)) {
      const records = JSON.parse(values[0]);
      if (records.length >= BATCH) captured = { call: text, values, records };
    }
    return query.call(this, config, ...rest);
  };
  await createSearchItemsInProcess(database.url, CREATES);
  pg.Client.prototype.query = query;
  if (!captured) throw new Error(`no batch call of ${BATCH} or more creates seen`);
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const { rows: functions } = await admin.query(`select prosrc from pg_proc where proname = 'storage_create_items'`);
  await admin.end();
  const body = functions[0].prosrc;
  const first = body.slice(body.indexOf('with r as ('), body.indexOf('select array_agg(n order by n)'));
  const withoutCounts = `${first.replace('jsonb_to_recordset(p_records)', 'jsonb_to_recordset($1::jsonb)')}select n from done`;
  const counted = `insert into storage_value_counts as c (vk, t, num, str, rs, shard, n)
      select v.vk, v.t, v.num, v.str, v.rs, pg_backend_pid() % 32, count(*) from val v
      where v.elem = 0 and v.t in (0, 1, 2)
      group by v.vk, v.t, v.num, v.str, v.rs order by v.vk, v.t, v.num, v.str, v.rs
      on conflict (vk, t, num, str, rs, shard) do update set n = c.n + excluded.n`;
  const withCounts = withoutCounts
    .replace(
      /(val as \(\s*insert into storage_item_values[\s\S]*?s text\))\)/,
      '$1 returning vk, t, elem, num, str, rs)',
    )
    .replace(/\s(select n from done)\s*$/, `,\n    vct as (${counted})\n    $1`);
  if (!/returning vk/.test(withCounts) || !/vct as/.test(withCounts))
    throw new Error('the captured statement is not of the shape this script rewrites');
  console.log(`batch of ${captured.records.length} creates; ${CREATES} items in the store`);

  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const pid = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
  const cpuNs = () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  const trigger = async (on) => {
    await client.query('drop trigger if exists storage_item_values_count_insert on storage_item_values');
    if (on)
      await client.query(`create trigger storage_item_values_count_insert after insert on storage_item_values
        referencing new table as new_rows for each statement execute function storage_item_values_count()`);
  };
  const variants = {
    trigger: { text: withoutCounts, trigger: true },
    statement: { text: withCounts, trigger: false },
    uncounted: { text: withoutCounts, trigger: false },
    call: { text: captured.call, trigger: true, call: true },
  };
  if (EXPLAIN) {
    // The statement as captured, with the insert trigger as main has it, under EXPLAIN (ANALYZE, BUFFERS): each CTE's
    // insert and the count trigger timed apart (the last of 10 runs, each rolled back).
    await trigger(true);
    let plan;
    for (let r = 0; r < 10; r++) {
      const records = captured.records.map((record) => ({ ...record, k: `${record.k}-x${r}` }));
      await client.query('begin');
      plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${withoutCounts}`, [JSON.stringify(records)]);
      await client.query('rollback');
    }
    for (const row of plan.rows) console.log(row['QUERY PLAN']);
  }
  const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  let run = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const names = Object.keys(variants);
    if (round % 2) names.reverse();
    for (const name of names) {
      const variant = variants[name];
      await trigger(variant.trigger);
      for (let r = 0; r < RUNS; r++) {
        run++;
        const records = captured.records.map((record) => ({ ...record, k: `${record.k}-${run}` }));
        const param = JSON.stringify(records);
        await client.query('begin');
        const before = cpuNs();
        const { rowCount } = await client.query(
          variant.text,
          variant.call ? [param, ...captured.values.slice(1)] : [param],
        );
        const spent = cpuNs() - before;
        await client.query('rollback');
        if (rowCount !== records.length) throw new Error(`${name}: ${rowCount} of ${records.length} inserted`);
        samples[name].push(spent / 1000);
      }
    }
  }
  await trigger(false);
  await client.end();
  const n = captured.records.length;
  console.log('| variant | server CPU a run, us (median) | a create | runs |');
  console.log('|---|---|---|---|');
  for (const [name, list] of Object.entries(samples)) {
    const m = median(list);
    console.log(`| ${name} | ${Math.round(m)} | ${Math.round(m / n)} | ${list.length} |`);
  }
} finally {
  await database.drop();
}
