import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of this run's PostgreSQL database, or '' when the PostgreSQL half is skipped. */
    pgUrl: string;
  }
}

const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Creates one PostgreSQL database for the whole run (each test file then works in its own schema)
 * and drops it afterwards. Without a reachable server the PostgreSQL half is skipped, loudly; in CI (`CI` set
 * and not `false`/`0`) the run fails instead.
 */
export default async function setup(project: Pick<TestProject, 'provide'>, env: NodeJS.ProcessEnv = process.env) {
  const adminUrl = env.SVC_TEST_PG_URL || DEFAULT_PG;
  const dbName = `svc_test_${Date.now().toString(36)}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
  } catch (err) {
    await admin.end().catch(() => undefined);
    const why = (err as Error).message;
    // In CI half a suite is a red run, not a banner: the PostgreSQL half is what scale-out deployments run.
    if (isCi(env))
      throw new Error(`CI=${env.CI}: PostgreSQL is required but not reachable at ${redact(adminUrl)} (${why})`);
    const banner = `\n*** PostgreSQL half SKIPPED: no PostgreSQL reachable at ${redact(adminUrl)} (${why}).\n*** Set SVC_TEST_PG_URL to run every integration test on PostgreSQL too.\n`;
    console.warn(banner);
    project.provide('pgUrl', '');
    return async () => console.warn(banner);
  }
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  project.provide('pgUrl', url.toString());
  console.log(`PostgreSQL half: database ${dbName} on ${redact(adminUrl)}`);
  return async () => {
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  };
}

function redact(u: string): string {
  try {
    const url = new URL(u);
    url.password = url.password ? '***' : '';
    return url.toString();
  } catch {
    return 'postgres';
  }
}

export function isCi(env: NodeJS.ProcessEnv): boolean {
  const ci = (env.CI ?? '').trim().toLowerCase();
  return ci !== '' && ci !== 'false' && ci !== '0';
}
