// Issue 43: a store's export streams with flat memory. One store of ITEMS items (half readable by role-a, half by
// role-b, about 300 bytes of JSON each); the export of what role-a may read, as CSV and as JSON, with and without a
// filter, once read as fast as the socket allows and once by a slow reader (SLOW_KBPS kB/s) that makes the service
// wait on the socket. The service's resident memory (VmRSS of /proc/<pid>/status) is sampled every 20 ms: the growth
// over the memory before the export must not follow the number of items exported. Each export is checked against
// the items the reader may read: the count, and every id once.
// Usage: npm run build && node bench/storage-export.mjs
// Env:   ENGINE=sqlite|postgres (default sqlite); PG_ADMIN_URL; ITEMS (100000); SMALL (10000: the export compared
//        with, the first SMALL items); SLOW_KBPS (2000).
import { readFileSync } from 'node:fs';
import { createBenchDatabase, freePort, median, startService, writeBenchConfig } from './lib.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ITEMS = Number(process.env.ITEMS ?? 100_000);
const SMALL = Number(process.env.SMALL ?? 10_000);
const SLOW_KBPS = Number(process.env.SLOW_KBPS ?? 2000);
const WRITER = 'k-bench-export-writer-0001';
const READER = 'k-bench-export-reader-0001';
const STORE = '/cxf/svc-core/storage/store';

const { configFile } = writeBenchConfig('svc-bench-export-', [
  { name: 'writer', key: WRITER, roles: ['W'] },
  { name: 'reader', key: READER, roles: ['role-a'] },
]);
const database = ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_export') : undefined;
const service = await startService({
  port: await freePort(),
  configFile,
  env: database ? { DATABASE_URL: database.url } : {},
});

const rssKb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${service.pid}/status`, 'utf8'))[1]);

async function put(store, i, attempt = 0) {
  const res = await fetch(`${service.url}${STORE}/${store}/item-${i}`, {
    method: 'PUT',
    headers: { 'x-apikey': WRITER, 'content-type': 'application/json' },
    body: JSON.stringify({
      value: {
        n: i,
        status: ['open', 'closed', 'waiting', 'done'][i % 4],
        title: `item number ${i} of the export benchmark`,
        note: 'x'.repeat(150),
        tags: ['a', 'b', `t${i % 10}`],
      },
      readRestriction: { roles: [i % 2 === 0 ? 'role-a' : 'role-b'] },
      writeRestriction: { roles: ['W'] },
    }),
  }).catch((error) => {
    // A kept-alive socket the service closed as it was reused (the PUT is idempotent): send it again.
    if (attempt < 3 && error.cause?.code === 'ECONNRESET') return undefined;
    throw error;
  });
  if (res === undefined) return put(store, i, attempt + 1);
  if (res.status !== 200) throw new Error(`PUT answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

async function seed(store, count) {
  const t0 = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < count) await put(store, next++);
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  console.log(`seeded ${count} items into ${store} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

/** One export, read to the end (slowly if `kbps`), with the service's memory sampled meanwhile. */
async function exportOnce(store, format, { filter, kbps } = {}) {
  global.gc?.();
  await new Promise((r) => setTimeout(r, 200));
  const before = rssKb();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssKb());
  }, 20);
  const params = new URLSearchParams({ format });
  if (filter) params.set('filter', JSON.stringify(filter));
  const t0 = Date.now();
  const res = await fetch(`${service.url}${STORE}/${store}/export?${params}`, { headers: { 'x-apikey': READER } });
  if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
  const chunks = [];
  let bytes = 0;
  for await (const chunk of res.body) {
    chunks.push(Buffer.from(chunk));
    bytes += chunk.length;
    // A slow reader: wait until the bytes read so far match its rate, so the service waits on a full socket.
    if (kbps) {
      const due = (bytes / 1024 / kbps) * 1000 - (Date.now() - t0);
      if (due > 0) await new Promise((r) => setTimeout(r, due));
    }
  }
  clearInterval(sampler);
  peak = Math.max(peak, rssKb());
  return { before, peak, growthKb: peak - before, bytes, ms: Date.now() - t0, text: Buffer.concat(chunks).toString() };
}

/** The ids in an export, checked: each once, and exactly the even items below `count` (what role-a may read). */
function check(format, text, count, filter) {
  const ids =
    format === 'json'
      ? JSON.parse(text).map((item) => item.id)
      : text
          .trim()
          .split('\n')
          .slice(1)
          .map((line) => line.split(',')[0].replace(/"/g, ''));
  const expected = [];
  for (let i = 0; i < count; i += 2) if (!filter || ['open', 'waiting'][(i / 2) % 2] === 'open') expected.push(i);
  const seen = new Set(ids);
  if (seen.size !== ids.length) throw new Error(`${format}: an id was exported twice`);
  if (ids.length !== expected.length || expected.some((i) => !seen.has(`item-${i}`)))
    throw new Error(`${format}: ${ids.length} ids exported, ${expected.length} expected`);
  return ids.length;
}

try {
  await seed('small', SMALL);
  await seed('large', ITEMS);
  const rows = [];
  const filter = [{ property: 'value.status', operator: 'eq', value: 'open' }];
  for (const format of ['csv', 'json'])
    for (const [shape, options] of [
      ['all, fast reader', {}],
      [`all, slow reader (${SLOW_KBPS} kB/s)`, { kbps: SLOW_KBPS }],
      ['filter status = open, fast reader', { filter }],
    ])
      for (const [store, count] of [
        ['small', SMALL],
        ['large', ITEMS],
      ]) {
        const runs = [];
        for (let round = 0; round < (options.kbps ? 1 : 3); round++) {
          const r = await exportOnce(store, format, options);
          r.exported = check(format, r.text, count, options.filter);
          r.text = undefined;
          runs.push(r);
        }
        rows.push({
          format,
          shape,
          count,
          exported: runs[0].exported,
          mb: (runs[0].bytes / 1048576).toFixed(1),
          growth: median(runs.map((r) => r.growthKb)),
          before: median(runs.map((r) => r.before)),
          ms: median(runs.map((r) => r.ms)),
        });
      }
  console.log(`\nExport memory (${ENGINE}, service VmRSS sampled every 20 ms; medians of 3 fast runs, 1 slow run)`);
  console.log('| format | shape | items in store | exported | MB | RSS before (MB) | RSS growth (MB) | time (ms) |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.format} | ${r.shape} | ${r.count} | ${r.exported} | ${r.mb} | ${(r.before / 1024).toFixed(0)} | ${(r.growth / 1024).toFixed(1)} | ${r.ms} |`,
    );
} finally {
  await service.close();
  await database?.drop();
}
