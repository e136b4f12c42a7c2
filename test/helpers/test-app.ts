import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, inject } from 'vitest';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createDatabase, type Database, type DatabaseOptions } from '../../src/platform/db/database.js';

export type Engine = 'sqlite' | 'postgres';
export const ENGINES: Engine[] = ['sqlite', 'postgres'];

/** Runs a describe block once per database engine; the PostgreSQL one is skipped when no server was reachable. */
export function describeEachEngine(name: string, body: (engine: Engine) => void): void {
  for (const engine of ENGINES) {
    const skip = engine === 'postgres' && !inject('pgUrl');
    (skip ? describe.skip : describe)(`${name} [${engine}]`, () => body(engine));
  }
}

/** A fresh, empty database of the engine: a SQLite file in a temp dir, or a PostgreSQL schema of this run's database. */
export async function openTestDatabase(engine: Engine, options: Partial<DatabaseOptions> = {}): Promise<Database> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
    const database = createDatabase({ logError: () => {}, ...options, dataDir: dir });
    return {
      ...database,
      destroy: async () => {
        await database.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = inject('pgUrl');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const database = createDatabase({ url, dataDir: '', pgSchema: schema, poolSize: 5, logError: () => {}, ...options });
  // The schema stays until the run's database is dropped (global setup): dropping it here raced with other files'
  // migrations, whose catalog introspection (Kysely's, over every schema) resolves schema names by name and failed
  // with "schema t_... does not exist" when one vanished under it.
  return database;
}

export const ADMIN_PASSWORD = 'admin-pass-1';

export interface TestApp extends App {
  app: FastifyInstance;
  engine: Engine;
  request(opts: InjectOptions): Promise<LightMyRequestResponse>;
}

/**
 * Builds the real app on a fresh database. `raw` is config data as a config file would hold it; `databaseOptions`
 * (e.g. a pool of one connection, whose session a test inspects) go to openTestDatabase.
 */
export async function startTestApp(
  engine: Engine,
  raw: Record<string, any> = {},
  databaseOptions: Partial<DatabaseOptions> = {},
): Promise<TestApp> {
  const database = await openTestDatabase(engine, databaseOptions);
  const config = parseConfig({
    ...raw,
    server: { logLevel: 'silent', ...(raw.server ?? {}) },
    identity: { bootstrapAdminPassword: ADMIN_PASSWORD, ...(raw.identity ?? {}) },
  });
  const built = await buildApp(config, { database, logger: false });
  return {
    ...built,
    engine,
    request: (opts) => built.app.inject(opts),
    async close() {
      await built.close();
      await database.destroy();
    },
  };
}

export interface SessionCredentials {
  cookie: string;
  csrf: string;
  record: any;
}

/** Logs in through the real endpoint and returns the cookie and CSRF token a browser would keep. */
export async function login(
  t: TestApp,
  tenantname: string,
  username: string,
  password: string,
): Promise<SessionCredentials> {
  const res = await t.request({
    method: 'POST',
    url: '/cxf/svc-core/authentication',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ tenantname, username, password }).toString(),
  });
  if (res.statusCode !== 200) throw new Error(`login of ${username} failed: ${res.statusCode} ${res.body}`);
  const setCookie = [res.headers['set-cookie']].flat()[0] as string;
  const record = res.json();
  return { cookie: setCookie.split(';')[0], csrf: record.principals['X-Csrf-Token'][0], record };
}

/** Headers for a session call; unsafe methods carry the CSRF token. */
export function sessionHeaders(s: SessionCredentials, withCsrf = true): Record<string, string> {
  return withCsrf ? { cookie: s.cookie, 'x-csrf-token': s.csrf } : { cookie: s.cookie };
}
