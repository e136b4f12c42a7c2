// Issue 11: data management Template get and query on 1,000 templates, against a bare route in the same run.
// Usage: npm run build && node bench/data-management.mjs
// Env: ENGINE=sqlite|postgres (default sqlite); PG_ADMIN_URL; TEMPLATES (1000); ROUNDS (3), DURATION (5 s), CONNECTIONS (50).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare, createBenchDatabase, freePort, printTable, startBaseline, startService } from './lib.mjs';

const ENGINE = process.env.ENGINE ?? 'sqlite';
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TEMPLATES = Number(process.env.TEMPLATES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const DURATION = Number(process.env.DURATION ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const AUTH = `Basic ${Buffer.from('dm:dm-pass-1').toString('base64')}`;

const port = await freePort();
const root = mkdtempSync(join(tmpdir(), 'svc-bench-dm-'));
const configFile = join(root, 'config.json');
writeFileSync(
  configFile,
  JSON.stringify({ engine: { users: [{ name: 'dm', password: 'dm-pass-1', groups: ['DataManagement'] }] } }),
);
const benchDb = ENGINE === 'postgres' ? await createBenchDatabase(PG_ADMIN_URL, 'svc_bench_dm') : undefined;
const service = await startService({ port, configFile, env: benchDb ? { DATABASE_URL: benchDb.url } : {} });
const url = `${service.url}/engine/servlet/UploadServlet/api_protocol`;
const post = async (body) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: AUTH, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  return res.json();
};
const template = (i) => ({
  customId: `tpl-${i}`,
  name: `Template ${i}`,
  description: 'A machine of the plant',
  attributes: Array.from({ length: 10 }, (_, k) => ({
    key: `dm:attr${k}`,
    type: k % 2 ? 'string' : 'integer',
    label: `Attribute ${k}`,
    required: k === 0,
  })),
  actions: [{ key: 'notify', scope: 'template', handler: { type: 'webhook', webhook: 'none' } }],
});
try {
  for (let from = 0; from < TEMPLATES; from += 100) {
    await post({
      requests: Array.from({ length: Math.min(100, TEMPLATES - from) }, (_, k) => ({
        context: 'Template',
        method: 'create',
        parameters: { template: template(from + k) },
      })),
    });
  }
  const getBody = JSON.stringify({
    context: 'Template',
    method: 'get',
    parameters: { customId: `tpl-${Math.floor(TEMPLATES / 2)}` },
  });
  const queryBody = JSON.stringify({
    context: 'Template',
    method: 'query',
    parameters: {
      limit: 20,
      filters: [{ property: 'customId', operator: 'like', value: 'tpl-5*' }],
      sorters: [{ property: 'name', direction: 'DESC' }],
    },
  });
  const gotten = await post(JSON.parse(getBody));
  const queried = await post(JSON.parse(queryBody));
  const baseGet = await startBaseline(gotten);
  const baseQuery = await startBaseline(queried);
  const headers = { authorization: AUTH, 'content-type': 'application/json' };
  try {
    const results = await compare(
      {
        'bare route (same template JSON)': {
          url: `${baseGet.url}/x`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: getBody,
        },
        'Template get by customId': { url, method: 'POST', headers, body: getBody },
        'bare route (same query JSON)': {
          url: `${baseQuery.url}/x`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: queryBody,
        },
        'Template query (like filter, sort, limit 20)': { url, method: 'POST', headers, body: queryBody },
      },
      { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS },
    );
    const entries = Object.entries(results);
    printTable(
      `${ENGINE}, ${TEMPLATES} templates, get (${CONNECTIONS} connections, ${ROUNDS} rounds x ${DURATION} s)`,
      Object.fromEntries(entries.slice(0, 2)),
      'bare route (same template JSON)',
    );
    printTable(
      `${ENGINE}, ${TEMPLATES} templates, query (total ${queried.total})`,
      Object.fromEntries(entries.slice(2)),
      'bare route (same query JSON)',
    );
  } finally {
    await baseGet.close();
    await baseQuery.close();
  }
} finally {
  await service.close();
  rmSync(root, { recursive: true, force: true });
  await benchDb?.drop();
}
