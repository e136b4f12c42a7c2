// Where a create's time goes inside SQLite: creates of issue 4's item shape through the app in-process (50 in flight),
// each better-sqlite3 statement call timed by its SQL text. Usage: npm run build && N=6000 node bench/storage-write-profile.mjs
import SQLite from 'better-sqlite3';
const times = new Map();
const origPrepare = SQLite.prototype.prepare;
SQLite.prototype.prepare = function (src) {
  const st = origPrepare.call(this, src);
  const key = src.replace(/\/\*prepared\*\/ /, '').slice(0, 60);
  for (const m of ['run', 'all', 'get']) {
    const f = st[m].bind(st);
    st[m] = (...a) => { const t0 = performance.now(); try { return f(...a); } finally { const e = times.get(key) ?? [0, 0]; e[0] += performance.now() - t0; e[1]++; times.set(key, e); } };
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
const itemOf = (i) => ({ value: { n: i, status: ['open', 'closed', 'pending', 'done'][i % 4], title: `item ${i}`, tags: ['bench', `t${i % 10}`] }, readRestriction: { roles: [`role-${i % 50}`] }, writeRestriction: { roles: [`role-${i % 50}`] } });
const config = parseConfig({ database: { dataDir }, server: { logLevel: 'silent' }, tenants: [{ name: 'bench', apiKeys: [{ name: 'writer', key: 'k-w-0123456789', roles: ['writer'] }] }] });
const { app, close } = await buildApp(config, { logger: false });
await app.ready();
times.clear();
const t0 = performance.now();
let next = 0;
await Promise.all(Array.from({ length: 50 }, async () => { while (next < N) { const i = next++; const r = await app.inject({ method: 'POST', url: '/cxf/svc-core/storage/store/s', headers: { 'x-apikey': 'k-w-0123456789', 'content-type': 'application/json' }, payload: JSON.stringify(itemOf(i)) }); if (r.statusCode !== 200) throw new Error(r.body); } }));
const total = performance.now() - t0;
console.log('creates/s', Math.round(N / (total / 1000)), 'total ms', Math.round(total));
for (const [k, [ms, n]] of [...times.entries()].sort((a, b) => b[1][0] - a[1][0]).slice(0, 12)) console.log(Math.round(ms), 'ms', n, 'x', k.replace(/\s+/g, ' '));
await close();
rmSync(dataDir, { recursive: true, force: true });
