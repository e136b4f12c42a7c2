// Where a create's time goes inside SQLite: creates through the app in-process (50 in flight), each better-sqlite3
// statement call timed by its SQL text, and the group commits' durations (the largest are the WAL checkpoints).
// Usage: npm run build && N=6000 node bench/storage-write-profile.mjs
// Env:   N (creates, 6000); ITEM=search for bench/storage-search.mjs's 10-leaf item (default: issue 4's item shape);
//        SKIP=table[,table] an experiment only: that table's inserts become a no-op SELECT of as many parameters, to see
//        what its rows cost (the service then stores items without them). WRITER_THREAD=1 keeps SQLite's writer thread
//        (default off here: its statements run on a thread this script does not time).
import SQLite from 'better-sqlite3';
import { searchItem } from './search-item.mjs';
const skipped = (process.env.SKIP ?? '').split(',').filter(Boolean);
const times = new Map();
const commits = [];
const origPrepare = SQLite.prototype.prepare;
SQLite.prototype.prepare = function (src) {
  const body = src.replace(/^\/\*prepared\*\/ /, '');
  if (skipped.some((table) => body.toLowerCase().startsWith(`insert into "${table}"`))) {
    const n = (body.match(/\?/g) ?? []).length;
    src = n > 0 ? `SELECT ${Array(n).fill('?').join(',')}` : 'SELECT 1';
  }
  const st = origPrepare.call(this, src);
  const key = body.slice(0, 60);
  const isCommit = /^commit/i.test(body.trim());
  for (const m of ['run', 'all', 'get']) {
    const f = st[m].bind(st);
    st[m] = (...a) => {
      const t0 = performance.now();
      try {
        return f(...a);
      } finally {
        const ms = performance.now() - t0;
        const e = times.get(key) ?? [0, 0];
        e[0] += ms;
        e[1]++;
        times.set(key, e);
        if (isCommit) commits.push(ms);
      }
    };
  }
  return st;
};
const { buildApp } = await import('../dist/app.js');
const { parseConfig } = await import('../dist/config/load-config.js');
const { mkdtempSync, rmSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const dataDir = mkdtempSync(join(tmpdir(), 'prof3-'));
const N = Number(process.env.N ?? 6000);
const ITEMS = {
  issue4: (i) => ({
    value: {
      n: i,
      status: ['open', 'closed', 'pending', 'done'][i % 4],
      title: `item ${i}`,
      tags: ['bench', `t${i % 10}`],
    },
    readRestriction: { roles: [`role-${i % 50}`] },
    writeRestriction: { roles: [`role-${i % 50}`] },
  }),
  search: searchItem,
};
const itemOf = ITEMS[process.env.ITEM ?? 'issue4'];
if (!itemOf) throw new Error(`ITEM: one of ${Object.keys(ITEMS).join(', ')}`);
const config = parseConfig({
  database: { dataDir, sqliteWriterThread: process.env.WRITER_THREAD === '1' },
  server: { logLevel: 'silent' },
  tenants: [{ name: 'bench', apiKeys: [{ name: 'writer', key: 'k-w-0123456789', roles: ['writer'] }] }],
});
const { app, close } = await buildApp(config, { logger: false });
await app.ready();
times.clear();
commits.length = 0;
const t0 = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 50 }, async () => {
    while (next < N) {
      const i = next++;
      const r = await app.inject({
        method: 'POST',
        url: '/cxf/svc-core/storage/store/s',
        headers: { 'x-apikey': 'k-w-0123456789', 'content-type': 'application/json' },
        payload: JSON.stringify(itemOf(i)),
      });
      if (r.statusCode !== 200) throw new Error(r.body);
    }
  }),
);
const total = performance.now() - t0;
console.log(
  'creates/s',
  Math.round(N / (total / 1000)),
  'total ms',
  Math.round(total),
  skipped.length ? `(without the rows of ${skipped.join(', ')})` : '',
);
commits.sort((a, b) => a - b);
const sum = (list) => list.reduce((a, b) => a + b, 0);
if (commits.length > 0)
  console.log(
    'commits',
    commits.length,
    'ms in all',
    Math.round(sum(commits)),
    'p50',
    commits[commits.length >> 1].toFixed(2),
    'p90',
    commits[Math.floor(commits.length * 0.9)].toFixed(2),
    'five largest',
    Math.round(sum(commits.slice(-5))),
  );
for (const [k, [ms, n]] of [...times.entries()].sort((a, b) => b[1][0] - a[1][0]).slice(0, 12))
  console.log(Math.round(ms), 'ms', n, 'x', k.replace(/\s+/g, ' '));
await close();
rmSync(dataDir, { recursive: true, force: true });
