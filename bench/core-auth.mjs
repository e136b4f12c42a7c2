// Issues 2 and 3: session check, API-key and Bearer-authenticated requests vs a bare Fastify route
// answering the same JSON, in the same run. Usage: npm run build && node bench/core-auth.mjs
// Env: DATABASE_URL=postgres://... to run the service on PostgreSQL; ROUNDS, DURATION, CONNECTIONS.
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare, printTable, startBaseline, startService } from './lib.mjs';

const rounds = Number(process.env.ROUNDS ?? 3);
const duration = Number(process.env.DURATION ?? 5);
const connections = Number(process.env.CONNECTIONS ?? 50);
const API_KEY = 'k-bench-0123456789abcdef';

const configFile = join(mkdtempSync(join(tmpdir(), 'svc-bench-cfg-')), 'config.json');
writeFileSync(
  configFile,
  JSON.stringify({
    identity: { tokens: { ttlSeconds: 3600 } },
    tenants: [
      {
        name: 'bench',
        users: [
          {
            loginName: 'bench',
            password: 'bench-password',
            email: 'b@example.com',
            organisations: ['o1'],
            roles: ['R1', 'R2'],
            rights: ['loadModule_x'],
          },
        ],
        apiKeys: [
          { name: 'bench-key', key: API_KEY, organisations: ['o1'], roles: ['R1', 'R2'], rights: ['loadModule_x'] },
        ],
      },
    ],
  }),
);

const service = await startService({
  port: 18181,
  configFile,
  env: process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {},
});
try {
  const loginRes = await fetch(`${service.url}/cxf/svc-core/authentication`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'tenantname=bench&username=bench&password=bench-password',
  });
  const record = await loginRes.json();
  const cookie = loginRes.headers.get('set-cookie').split(';')[0];
  const principal = await (
    await fetch(`${service.url}/cxf/svc-core/authentication/principal`, { headers: { 'x-apikey': API_KEY } })
  ).json();
  const { access_token: token } = await (
    await fetch(`${service.url}/cxf/svc-core/authentication/token`, {
      method: 'POST',
      headers: { 'x-apikey': API_KEY },
    })
  ).json();

  const baseSession = await startBaseline(record);
  const basePrincipal = await startBaseline(principal);
  try {
    const results = await compare(
      {
        'bare route (session record JSON)': { url: `${baseSession.url}/x` },
        'GET /cxf/svc-core/authentication (cookie)': {
          url: `${service.url}/cxf/svc-core/authentication`,
          headers: { cookie },
        },
        'bare route (principal JSON)': { url: `${basePrincipal.url}/x` },
        'GET .../authentication/principal (X-APIKey)': {
          url: `${service.url}/cxf/svc-core/authentication/principal`,
          headers: { 'x-apikey': API_KEY },
        },
        'GET .../authentication/principal (Bearer)': {
          url: `${service.url}/cxf/svc-core/authentication/principal`,
          headers: { authorization: `Bearer ${token}` },
        },
      },
      { rounds, duration, connections },
    );
    const db = process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite';
    printTable(
      `Session check vs bare route (${db}, ${connections} connections, ${rounds} rounds x ${duration}s)`,
      Object.fromEntries(Object.entries(results).slice(0, 2)),
      'bare route (session record JSON)',
    );
    printTable(
      `API-key and Bearer requests vs bare route (${db})`,
      Object.fromEntries(Object.entries(results).slice(2)),
      'bare route (principal JSON)',
    );
    const key = results['GET .../authentication/principal (X-APIKey)'].rps;
    const bearer = results['GET .../authentication/principal (Bearer)'].rps;
    console.log(
      `\nBearer vs API key: ${((bearer / key) * 100).toFixed(0)}% of the API-key path's requests/s (goal: cost at most 20% more, i.e. >= 83%)`,
    );
  } finally {
    await baseSession.close();
    await basePrincipal.close();
  }
} finally {
  await service.close();
}
