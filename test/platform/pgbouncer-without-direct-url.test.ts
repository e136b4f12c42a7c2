// Behind PgBouncer in transaction pooling mode without database.directUrl: the service starts, serves, says at start
// what will not work, and its change feed reports the listener as off (so no cache trusts it).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createProcessDatabase } from '../helpers/service-process.js';
import { pgbouncerBinary, reportMissingPgBouncer, startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';

const TOKEN = 'metrics-token-0123456789';
const bouncer = inject('pgUrl') && pgbouncerBinary();
if (inject('pgUrl') && !bouncer) reportMissingPgBouncer('the start behind PgBouncer without a direct URL');

(bouncer ? describe : describe.skip)('behind PgBouncer without a direct URL [postgres]', () => {
  let app: App;
  let pgbouncer: PgBouncer;
  let database: { url: string; drop(): Promise<void> };
  const lines: Array<{ level: number; msg: string }> = [];
  beforeAll(async () => {
    database = await createProcessDatabase(inject('pgUrl'));
    pgbouncer = await startPgBouncer(inject('pgUrl'));
    const config = parseConfig({
      identity: { bootstrapAdminPassword: 'admin-pass-1' },
      database: { url: pgbouncer.through(database.url), pooler: 'transaction' },
      metrics: { enabled: true, token: TOKEN },
    });
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    app = await buildApp(config, { logger: { level: 'warn', stream } });
  });
  afterAll(async () => {
    await app?.close();
    await pgbouncer?.stop();
    await database?.drop();
  });

  it('starts, serves, and logs each thing that will not work', async () => {
    const warnings = lines.filter((l) => l.level === 40).map((l) => l.msg);
    expect(
      warnings.filter((m) => m.startsWith('database.pooler is transaction and database.directUrl is not set')),
    ).toHaveLength(3);
    expect(warnings.join('\n')).toMatch(/change feed cannot LISTEN/);
    expect(warnings.join('\n')).toMatch(/advisory lock/);
    const res = await app.app.inject({
      method: 'POST',
      url: '/cxf/svc-core/authentication',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'tenantname=default&username=admin&password=admin-pass-1',
    });
    expect(res.statusCode).toBe(200);
    const metrics = await app.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(metrics.body).toContain('svc_change_feed_listener{state="off"} 1');
  });
});
