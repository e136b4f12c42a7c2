// Issue 43: the live store stream under fan-out. SUBSCRIBERS streams on one store of ITEMS items, half of the items
// readable by role-a, half by role-b; the subscribers are KEYS API keys (half role-a, half role-b), so each may read
// half. Per write (an update of an item, alternating roles): the time until the last subscriber that may read it has
// its event (p99 over WRITES), and the events that reached subscribers that may not read the item (must be 0).
// Usage: npm run build && node bench/storage-stream.mjs
// Env:   ENGINE=sqlite|postgres (default sqlite); PG_ADMIN_URL; ITEMS (10000); SUBSCRIBERS (1000); KEYS (40);
//        WRITES (50); on PostgreSQL the same again with the subscribers on a second instance.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest, Agent } from 'node:http';
import { join } from 'node:path';
import { median, startService, createBenchDatabase, freePort } from './lib.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ITEMS = Number(process.env.ITEMS ?? 10_000);
const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 1000);
const KEYS = Number(process.env.KEYS ?? 40);
const WRITES = Number(process.env.WRITES ?? 50);
const WRITER_KEY = 'k-bench-stream-writer-01';
const STORE = '/cxf/svc-core/storage/store/bench';
const roleOfKey = (k) => (k % 2 === 0 ? 'role-a' : 'role-b');
const keyOf = (k) => `k-bench-stream-reader-${String(k).padStart(4, '0')}`;

const root = mkdtempSync(join(tmpdir(), 'svc-bench-stream-'));
const configFile = join(root, 'config.json');
writeFileSync(
  configFile,
  JSON.stringify({
    tenants: [
      {
        name: 'bench',
        apiKeys: [
          { name: 'writer', key: WRITER_KEY, roles: ['W'] },
          ...Array.from({ length: KEYS }, (_, k) => ({ name: `reader-${k}`, key: keyOf(k), roles: [roleOfKey(k)] })),
        ],
      },
    ],
    limits: { streamsPerCaller: 0, connectionsPerAddress: 0 },
  }),
);
const benchDb = ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_stream') : undefined;
const serviceEnv = ENGINE === 'postgres' ? { DATABASE_URL: benchDb.url } : {};

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

/** Opens the streams; records per write marker the arrival times and, per subscriber role, which markers it saw. */
async function subscribe(url) {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const arrivals = new Map();
  const stats = { wrong: 0 };
  const requests = [];
  for (let from = 0; from < SUBSCRIBERS; from += 100)
    await Promise.all(
      Array.from(
        { length: Math.min(100, SUBSCRIBERS - from) },
        (_, s) =>
          new Promise((resolve, reject) => {
            const k = (from + s) % KEYS;
            const role = roleOfKey(k);
            const req = httpRequest(`${url}${STORE}/stream`, { agent, headers: { 'x-apikey': keyOf(k) } }, (res) => {
              if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
              res.setEncoding('utf8');
              let buf = '';
              res.on('data', (chunk) => {
                buf += chunk;
                let cut;
                while ((cut = buf.indexOf('\n\n')) >= 0) {
                  const frame = buf.slice(0, cut);
                  buf = buf.slice(cut + 2);
                  const m = /"mark":"(w-\d+)"/.exec(frame);
                  if (!m) continue;
                  const roles = /"readRestriction":\{"roles":\["([^"]+)"\]/.exec(frame);
                  if (!roles || roles[1] !== role) stats.wrong++;
                  const list = arrivals.get(m[1]) ?? [];
                  list.push(performance.now());
                  arrivals.set(m[1], list);
                }
              });
              resolve();
            });
            req.on('error', reject);
            req.end();
            requests.push(req);
          }),
      ),
    );
  return { arrivals, stats, close: () => requests.forEach((r) => r.destroy()) };
}

async function fanout(writerUrl, subscriberUrl, label) {
  const subs = await subscribe(subscriberUrl);
  // Readers per role: subscriber s holds key s % KEYS.
  const readers = (role) =>
    Array.from({ length: SUBSCRIBERS }, (_, s) => roleOfKey(s % KEYS)).filter((r) => r === role).length;
  const lasts = [];
  try {
    for (let w = 0; w < WRITES; w++) {
      const i = Math.floor(Math.random() * ITEMS);
      const mark = `w-${w}`;
      const expected = readers(i % 2 === 0 ? 'role-a' : 'role-b');
      const t0 = performance.now();
      await put(writerUrl, i, { n: i, mark });
      const deadline = Date.now() + 10_000;
      while ((subs.arrivals.get(mark)?.length ?? 0) < expected) {
        if (Date.now() > deadline)
          throw new Error(`${label}: ${subs.arrivals.get(mark)?.length ?? 0} of ${expected} got ${mark}`);
        await new Promise((r) => setTimeout(r, 1));
      }
      lasts.push(Math.max(...subs.arrivals.get(mark)) - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 200)); // late (wrong) deliveries would show up by now
  } finally {
    subs.close();
  }
  const sorted = [...lasts].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
  console.log(
    `${label}: ${SUBSCRIBERS} subscribers (${KEYS} keys, each may read half of ${ITEMS} items), ${WRITES} writes; ` +
      `write -> last readable subscriber: median ${median(lasts).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ` +
      `max ${sorted.at(-1).toFixed(1)} ms; events to subscribers that may not read the item: ${subs.stats.wrong}`,
  );
}

const service = await startService({ port: await freePort(), configFile, env: serviceEnv });
let second;
try {
  const t0 = performance.now();
  await seed(service.url);
  console.log(`seeded ${ITEMS} items in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await fanout(service.url, service.url, `${ENGINE}, one instance`);
  if (ENGINE === 'postgres') {
    second = await startService({ port: await freePort(), configFile, env: serviceEnv });
    await fanout(service.url, second.url, 'postgres, writer on instance A, subscribers on instance B');
  }
} finally {
  await second?.close();
  await service.close();
  rmSync(root, { recursive: true, force: true });
  await benchDb?.drop();
}
