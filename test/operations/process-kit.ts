// The built service as separate processes on either engine: a data directory of their own (SQLite) or a database of
// their own (PostgreSQL), and an API key that may write items and notifications.
import { inject } from 'vitest';
import type { Engine } from '../helpers/test-app.js';
import { createProcessDatabase, makeWorkDir } from '../helpers/service-process.js';

export const OPS_KEY = 'k-ops-writer-0123456';

export const OPS_CONFIG = {
  identity: { bootstrapAdminPassword: 'admin-pass-1' },
  tenants: [
    {
      name: 'default',
      apiKeys: [{ name: 'ops', key: OPS_KEY, roles: ['WRITER', 'NOTIFICATION_ADMIN'] }],
    },
  ],
};

export const ITEM = { value: 1, readRestriction: { roles: ['WRITER'] }, writeRestriction: { roles: ['WRITER'] } };

export interface ProcessPlace {
  dir: string;
  /** Environment of a process (or the CLI) on this place's database. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** A work directory and, on PostgreSQL, a database of its own. */
export async function processPlace(engine: Engine): Promise<ProcessPlace> {
  const work = makeWorkDir();
  if (engine === 'sqlite') {
    return { dir: work.dir, env: { SVC_DATA_DIR: `${work.dir}/data` }, cleanup: async () => work.cleanup() };
  }
  const database = await createProcessDatabase(inject('pgUrl'));
  return {
    dir: work.dir,
    env: { DATABASE_URL: database.url },
    async cleanup() {
      await database.drop();
      work.cleanup();
    },
  };
}

export const keyed = (body?: unknown): RequestInit => ({
  method: body === undefined ? 'GET' : 'POST',
  headers: { 'x-apikey': OPS_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  body: body === undefined ? undefined : JSON.stringify(body),
});
