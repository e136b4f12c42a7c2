// GET /livez and GET /readyz as a load balancer reads them: 200 while ready, 503 with the error object naming what is
// not (a schema step missing, a database that does not answer, the change feed's listener down, a shutdown begun).
import { afterEach, expect, inject, it } from 'vitest';
import pg from 'pg';
import { buildApp, type App } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import type { Database } from '../../src/platform/db/database.js';
import { describeEachEngine, openTestDatabase } from '../helpers/test-app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}

describeEachEngine('readiness', (engine) => {
  let database: Database | undefined;
  let built: App | undefined;
  afterEach(async () => {
    await built?.close().catch(() => undefined);
    await database?.destroy();
    built = database = undefined;
  });

  async function start(db?: Database): Promise<App> {
    database ??= await openTestDatabase(engine);
    const config = parseConfig({
      server: { logLevel: 'silent' },
      identity: { bootstrapAdminPassword: 'admin-pass-1' },
    });
    built = await buildApp(config, { database: db ?? database, logger: false });
    return built;
  }
  const get = (url: string) => built!.app.inject({ method: 'GET', url });

  it('answers /livez and /readyz with every check ok', async () => {
    await start();
    const live = await get('/livez');
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok' });
    const ready = await get('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', schema: 'ok', changeFeed: engine === 'postgres' ? 'ok' : 'not used', shutdown: 'ok' },
    });
    expect((await get('/health')).json()).toEqual({ status: 'ok' });
  });

  it('is not ready while a schema step of this version is missing, and ready again once it is there', async () => {
    await start();
    const { db } = built!.database;
    const row = await db.selectFrom('kysely_migration').selectAll().orderBy('name', 'desc').executeTakeFirstOrThrow();
    await db.deleteFrom('kysely_migration').where('name', '=', row.name).execute();
    const res = await get('/readyz');
    expect(res.statusCode).toBe(503);
    const { error } = res.json();
    expect(error).toMatchObject({ name: 'SERVICE_UNAVAILABLE', code: 503, messageKey: 'CORE_ERROR_NOT_READY' });
    expect(error.message).toContain(`schema lacks 1 step(s) of this version (first: ${row.name})`);
    expect(error.properties.checks).toMatchObject({ database: 'ok', schema: 'failing', shutdown: 'ok' });
    expect((await get('/livez')).statusCode).toBe(200);
    await db.insertInto('kysely_migration').values(row).execute();
    expect((await get('/readyz')).statusCode).toBe(200);
  });

  it('turns 503 once a shutdown has begun, while the service goes on serving', async () => {
    await start();
    built!.readiness.startDraining();
    const res = await get('/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.json().error.message).toBe('Not ready: the instance is shutting down');
    expect(res.json().error.properties.checks.shutdown).toBe('failing');
    const live = await get('/livez');
    expect(live.statusCode).toBe(200);
    expect(live.headers.connection).toBe('close'); // clients take their next connection elsewhere
  });

  if (engine === 'postgres') {
    it('is not ready while the database does not answer within 1 s', async () => {
      await start();
      const url = new URL(inject('pgUrl'));
      const schema = await built!.database.dialect.currentSchema(built!.database.db);
      const holder = new pg.Client({ connectionString: url.toString() });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query(`lock table ${schema}.kysely_migration in access exclusive mode`);
        const started = Date.now();
        const res = await get('/readyz');
        expect(res.statusCode).toBe(503);
        expect(Date.now() - started).toBeGreaterThanOrEqual(990);
        expect(res.json().error.message).toBe('Not ready: the database did not answer within 1000 ms');
        expect(res.json().error.properties.checks).toMatchObject({ database: 'failing', changeFeed: 'ok' });
      } finally {
        await holder.query('rollback');
        await holder.end();
      }
      await until(async () => (await get('/readyz')).statusCode === 200);
    });

    it("is not ready while the change feed's listener is down, and ready once it is back", async () => {
      database = await openTestDatabase(engine);
      const real = database;
      // The network between this instance and the server fails for new connections while `refuse` is set.
      let refuse = false;
      await start({
        ...real,
        connectDedicated: async () => {
          if (refuse) throw new Error('connect ECONNREFUSED (test: network down)');
          return real.connectDedicated!();
        },
      });
      const schema = await real.dialect.currentSchema(real.db);
      refuse = true;
      const admin = new pg.Client({ connectionString: inject('pgUrl') });
      await admin.connect();
      try {
        const { rowCount } = await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where query = $1`,
          [`LISTEN "svc_events_${schema}"`],
        );
        expect(rowCount).toBe(1);
      } finally {
        await admin.end();
      }
      await until(async () => (await get('/readyz')).statusCode === 503);
      const { error } = (await get('/readyz')).json();
      expect(error.message).toBe(
        "Not ready: the change feed's listener connection is down (events of other instances are not heard)",
      );
      expect(error.properties.checks).toMatchObject({ database: 'ok', schema: 'ok', changeFeed: 'failing' });
      refuse = false;
      await until(async () => (await get('/readyz')).statusCode === 200);
    });
  }
});
