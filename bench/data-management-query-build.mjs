// Issue 47 goal 6: the service's CPU for building an asset query's statements (AssetReads.select: the filters and sort
// compiled, the walk's guards and page written and compiled by Kysely), with no database: a driver that answers canned
// rows (a walk that finds its page). Builds alternate in one process, block by block, the order swapped each round, so
// a shared machine's drift touches both alike; the figure is each build's median CPU per select and the median of the
// rounds' pair ratios. The shapes are bench/data-management-assets.mjs's.
// Usage: npm run build && BASELINE_DIR=<a built checkout> node bench/data-management-query-build.mjs
// Env:   N (selects a block, 2000); ROUNDS (9); SHAPES=<words, comma-separated> (as data-management-assets.mjs).
import { join } from 'node:path';
import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { median } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const dirs = [process.env.BASELINE_DIR, ROOT].filter(Boolean);
const N = Number(process.env.N ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const ONLY = process.env.SHAPES?.split(',').filter(Boolean);
const eq = (key, value) => [{ property: `attributes.${key}`, operator: 'eq', value }];
const SHAPES = {
  'filter status (25%) + sort dm:n DESC': {
    total: 2500,
    p: { filters: eq('dm:status', 'open'), sorters: [{ property: 'attributes.dm:n', direction: 'DESC' }] },
  },
  'filter owner (1%) + sort dm:n DESC': {
    total: 100,
    p: { filters: eq('dm:owner', 'user-42'), sorters: [{ property: 'attributes.dm:n', direction: 'DESC' }] },
  },
  'filter category (12.5%) + sort displayName, user_ci': {
    total: 1250,
    p: { filters: eq('dm:category', 'c3'), sorters: [{ property: 'displayName' }], sortMode: 'user_ci' },
  },
  'filter price >= 900 (10%) + sort dm:title': {
    total: 1000,
    kind: 1,
    p: {
      filters: [{ property: 'attributes.dm:price', operator: 'gte', value: 900 }],
      sorters: [{ property: 'attributes.dm:title' }],
    },
  },
  'filter price >= 990 (1%) + sort dm:title': {
    total: 100,
    kind: 1,
    p: {
      filters: [{ property: 'attributes.dm:price', operator: 'gte', value: 990 }],
      sorters: [{ property: 'attributes.dm:title' }],
    },
  },
  'filter serial (one asset)': { total: 1, p: { filters: eq('dm:serial', 'S-4242-9'), sorters: [] } },
};

/** A build's AssetReads over a Kysely whose driver answers each statement with canned rows of `state`. */
async function buildOf(dir) {
  const { postgresDialect } = await import(join(dir, 'dist/platform/db/dialects/postgres.js'));
  const { AssetsRepository } = await import(join(dir, 'dist/engine/data-management/assets/assets.repository.js'));
  const { TemplatesRepository } = await import(
    join(dir, 'dist/engine/data-management/templates/templates.repository.js')
  );
  const { AssetReads } = await import(join(dir, 'dist/engine/data-management/assets/asset-query.js'));
  const state = { total: 0, kind: 0 };
  const page = Array.from({ length: 100 }, (_, i) => i + 1);
  const connection = {
    async executeQuery(q) {
      // The walk's guards (with the count), a count of its own, or a page with its documents.
      if (q.sql.includes('AS first'))
        return { rows: [{ first: state.kind, last: state.kind, unindexed: null, max: 10_000, n: state.total }] };
      if (q.sql.includes('count(*) AS n')) return { rows: [{ n: state.total }] };
      const ids = page.slice(0, state.total);
      return {
        rows: [
          ...ids.map((seq, i) => ({ kind: 0, seq, num: i + 1, text: String(state.total) })),
          ...ids.map((seq) => ({ kind: 1, seq, num: null, text: '{"customId":"m"}' })),
        ],
      };
    },
    async *streamQuery() {},
  };
  const driver = {
    async init() {},
    async acquireConnection() {
      return connection;
    },
    async beginTransaction() {},
    async commitTransaction() {},
    async rollbackTransaction() {},
    async releaseConnection() {},
    async destroy() {},
  };
  const db = new Kysely({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  const reads = new AssetReads(
    new AssetsRepository({}, 'engine', postgresDialect),
    new TemplatesRepository({}, 'engine', postgresDialect),
    postgresDialect,
    async () => ({}),
  );
  const caller = { name: 'dm', roles: [] };
  return { dir, state, select: (p) => reads.select(db, caller, { ...p, limit: 100 }, 'query', 'docsAndChildren') };
}

const builds = [];
for (const dir of dirs) builds.push(await buildOf(dir));
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
console.log(`AssetReads.select, CPU µs a select (${ROUNDS} rounds of ${N} a build, alternated), no database`);
console.log(
  `| shape | ${builds.map((b) => b.dir).join(' | ')} |${builds.length === 2 ? ' ratio (median of pairs) | pairs |' : ''}`,
);
console.log(`|---|${builds.map(() => '---|').join('')}${builds.length === 2 ? '---|---|' : ''}`);
for (const [label, shape] of Object.entries(SHAPES)) {
  if (ONLY && !ONLY.some((w) => label.includes(w))) continue;
  const results = builds.map(() => []);
  for (const b of builds) {
    b.state.total = shape.total;
    b.state.kind = shape.kind ?? 0;
    for (let i = 0; i < 300; i++) await b.select(shape.p);
  }
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [...builds.keys()] : [...builds.keys()].reverse();
    for (const k of order) {
      const t = cpu();
      for (let i = 0; i < N; i++) await builds[k].select(shape.p);
      results[k].push((cpu() - t) / N);
    }
  }
  const pairs = builds.length === 2 ? results[1].map((x, i) => x / results[0][i]) : [];
  console.log(
    `| ${label} | ${results.map((r) => median(r).toFixed(1)).join(' | ')} |${pairs.length ? ` ${median(pairs).toFixed(3)} | ${pairs.map((x) => x.toFixed(2)).join(' ')} |` : ''}`,
  );
}
