// The credential throttle across instances (issue 40, finding 4): three apps on one PostgreSQL schema, as a scaled-out
// deployment runs them; the database is their only shared state, so a burst spread over the three still verifies at
// most the budget, and the right password after it is refused on every instance.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';

const PAIR_BUDGET = 5;
const CONFIG = {
  server: { logLevel: 'silent' },
  identity: {
    bootstrapAdminPassword: 'admin-pass-1',
    loginThrottle: { maxFailuresPerAccountAndAddress: PAIR_BUDGET, maxFailuresPerAddress: 1000 },
  },
  tenants: [{ name: 'acme', users: [{ loginName: 'alice', password: 'alice-pass-1' }] }],
  engine: { users: [{ name: 'eng', password: 'eng-pass-1', groups: [], roles: [] }] },
};
const pgUrl = inject('pgUrl');

(pgUrl ? describe : describe.skip)('credential throttle: three instances on one PostgreSQL', () => {
  const apps: App[] = [];
  const databases: Database[] = [];

  beforeAll(async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.end();
    // The first migrates and provisions; the others start on the migrated schema.
    for (let i = 0; i < 3; i++) {
      const database = createDatabase({ url: pgUrl, dataDir: '', pgSchema: schema, poolSize: 4 });
      databases.push(database);
      apps.push(await buildApp(parseConfig(CONFIG), { database, logger: false }));
    }
  });

  afterAll(async () => {
    for (const a of apps) await a.close();
    for (const d of databases) await d.destroy();
  });

  const verified = () => apps.reduce((n, a) => n + a.security.passwordVerifications, 0);
  const login = (i: number, password: string) =>
    apps[i % 3].app.inject({
      method: 'POST',
      url: '/cxf/svc-core/authentication',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      remoteAddress: '127.0.0.2',
      payload: new URLSearchParams({ tenantname: 'acme', username: 'alice', password }).toString(),
    });
  const basic = (i: number, password: string) =>
    apps[i % 3].app.inject({
      method: 'GET',
      url: '/engine/rest/whoami?userType=processEngineUser',
      headers: { authorization: `Basic ${Buffer.from(`eng:${password}`).toString('base64')}` },
      remoteAddress: '127.0.0.2',
    });

  it.each([
    ['platform login', login, 'alice-pass-1'],
    ['Basic on /engine/rest', basic, 'eng-pass-1'],
  ])('%s: a burst of 200 spread over three instances verifies at most the budget', async (_name, send, right) => {
    const before = verified();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => send(i, `guess-${i}`)));
    expect(answers.filter((r) => r.statusCode === 401).length).toBeLessThanOrEqual(PAIR_BUDGET);
    expect(answers.filter((r) => r.statusCode === 429).length).toBeGreaterThanOrEqual(200 - PAIR_BUDGET);
    expect(verified() - before).toBeLessThanOrEqual(PAIR_BUDGET);
    for (let i = 0; i < 3; i++) expect((await send(i, right)).statusCode).toBe(429);
  });
});
