import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from 'kysely';
import type { InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createDatabase } from '../../src/platform/db/database.js';
import { ADMIN_PASSWORD, describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  ADMIN_KEY,
  FORMS_CONFIG,
  OTHER_TENANT_ADMIN_KEY,
  addVersion,
  call,
  formBody,
  historyVersions,
} from './forms-fixtures.js';

/** A second service instance with its own connection pool on the PostgreSQL schema of `t`. */
async function secondPostgresInstance(t: TestApp) {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.database.db);
  const database = createDatabase({ url: inject('pgUrl'), dataDir: '', pgSchema: rows[0].schema, poolSize: 5 });
  const config = parseConfig({
    ...FORMS_CONFIG,
    server: { logLevel: 'silent' },
    identity: { bootstrapAdminPassword: ADMIN_PASSWORD },
  });
  const built = await buildApp(config, { database, logger: false });
  return {
    request: (opts: InjectOptions) => built.app.inject(opts),
    async close() {
      await built.close();
      await database.destroy();
    },
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describeEachEngine('Forms API tenancy and concurrency', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, FORMS_CONFIG);
  });
  afterAll(() => t.close());

  describe("another tenant's form", () => {
    beforeAll(async () => {
      await addVersion(t, 'private', formBody('Acme only'));
      await addVersion(t, 'private', formBody('Acme only 2'));
    });

    it.each([
      ['GET', '/forms/private'],
      ['GET', '/forms/private/1'],
      ['GET', '/config/private'],
      ['GET', '/config/private/2'],
      ['GET', '/history/private'],
      ['DELETE', '/forms/private/1'],
      ['DELETE', '/forms/private'],
    ])('%s %s answers 404 as if it did not exist', async (method, url) => {
      const res = await call(t, method as any, url, { key: OTHER_TENANT_ADMIN_KEY });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.messageKey).toBe('FORMS_ERROR_FORM_NOT_FOUND');
      expect(await historyVersions(t, 'private')).toEqual([1, 2]);
    });

    it('is not in the list, and the same id is an independent form with its own versions', async () => {
      expect((await call(t, 'GET', '/forms', { key: OTHER_TENANT_ADMIN_KEY })).json()).toEqual([]);
      const own = await call(t, 'PUT', '/forms/private/5', { key: OTHER_TENANT_ADMIN_KEY, body: formBody('Other') });
      expect(own.json()).toMatchObject({ id: 'private', version: 1, name: 'Other', createdBy: 'other-admin' });
      expect((await call(t, 'GET', '/forms/private', { key: ADMIN_KEY })).json()).toMatchObject({
        version: 2,
        name: 'Acme only 2',
      });
      expect(
        (await call(t, 'GET', '/forms', { key: OTHER_TENANT_ADMIN_KEY })).json().map((f: any) => [f.id, f.version]),
      ).toEqual([['private', 1]]);
      await call(t, 'DELETE', '/forms/private', { key: OTHER_TENANT_ADMIN_KEY });
      expect(await historyVersions(t, 'private')).toEqual([1, 2]);
    });
  });

  describe('concurrent writers', () => {
    it('40 writers of one new form get 40 distinct versions, none lost', async () => {
      const writes = range(1, 40).map((i) =>
        i % 2
          ? call(t, 'POST', '/forms/busy', { body: formBody(`w${i}`) })
          : call(t, 'PUT', '/forms/busy/1', { body: formBody(`w${i}`) }),
      );
      const results = await Promise.all(writes);
      for (const r of results) expect(r.statusCode, r.body).toBe(200);
      const versions = results.map((r) => r.json().version).sort((a, b) => a - b);
      expect(versions).toEqual(range(1, 40));
      for (const r of results) expect(r.json().config.metaData.version).toBe(r.json().version);
      const history = (await call(t, 'GET', '/history/busy')).json();
      expect(history.map((f: any) => f.version)).toEqual(range(1, 40));
      // Each stored version holds what its own writer sent.
      const byVersion = new Map(results.map((r) => [r.json().version, r.json().name]));
      for (const f of history) expect(f.name).toBe(byVersion.get(f.version));
    });

    // PostgreSQL is the scale-out path; two SQLite connections in one process would block each other's event loop.
    it.skipIf(engine !== 'postgres')(
      'two service instances on one database hand out distinct versions of one form',
      async () => {
        const other = await secondPostgresInstance(t);
        try {
          const write = (i: number) => {
            const opts: InjectOptions = {
              method: 'POST',
              url: '/cxf/svc-forms/forms/shared',
              headers: { 'x-apikey': ADMIN_KEY },
              payload: formBody(`i${i}`),
            };
            return i % 2 ? t.request(opts) : other.request(opts);
          };
          const results = await Promise.all(range(1, 30).map(write));
          for (const r of results) expect(r.statusCode, r.body).toBe(200);
          expect(results.map((r) => r.json().version).sort((a, b) => a - b)).toEqual(range(1, 30));
          expect(await historyVersions(t, 'shared')).toEqual(range(1, 30));
        } finally {
          await other.close();
        }
      },
    );

    it('concurrent deletes and adds on one form keep the numbering and lose nothing', async () => {
      for (let i = 0; i < 20; i++) await addVersion(t, 'churn', formBody(`c${i}`));
      const deletes = range(1, 10).map((v) => call(t, 'DELETE', `/forms/churn/${v}`));
      const adds = range(1, 10).map((i) => call(t, 'POST', '/forms/churn', { body: formBody(`n${i}`) }));
      const results = await Promise.all([...deletes, ...adds]);
      for (const r of results) expect(r.statusCode, r.body).toBe(200);
      expect(
        results
          .slice(10)
          .map((r) => r.json().version)
          .sort((a, b) => a - b),
      ).toEqual(range(21, 30));
      expect(await historyVersions(t, 'churn')).toEqual(range(11, 30));
      expect((await call(t, 'GET', '/forms/churn')).json().version).toBe(30);
    });

    it('concurrent writers of many forms each get their own sequence', async () => {
      const ids = range(1, 8).map((i) => `multi-${i}`);
      const results = await Promise.all(
        ids.flatMap((id) => range(1, 5).map(() => call(t, 'POST', `/forms/${id}`, { body: formBody(id) }))),
      );
      for (const r of results) expect(r.statusCode, r.body).toBe(200);
      for (const id of ids) expect(await historyVersions(t, id)).toEqual(range(1, 5));
    });

    it('a concurrent delete of the form and adds leave a consistent form: consecutive versions, a true latest, a true counter', async () => {
      for (let i = 0; i < 3; i++) await addVersion(t, 'race', formBody(`r${i}`));
      const results = await Promise.all([
        call(t, 'DELETE', '/forms/race'),
        ...range(1, 6).map(() => call(t, 'POST', '/forms/race', { body: formBody('after') })),
      ]);
      for (const r of results) expect(r.statusCode, r.body).toBe(200);
      const history = await historyVersions(t, 'race');
      if (history === 404) {
        // The delete came last.
        expect((await addVersion(t, 'race')).version).toBe(1);
        return;
      }
      const versions = history as number[];
      // Versions held are consecutive: the adds before the delete went with it, the ones after start at 1.
      expect(versions).toEqual(range(versions[0], versions[versions.length - 1]));
      const latest = (await call(t, 'GET', '/forms/race')).json();
      expect(latest.version).toBe(versions[versions.length - 1]);
      const list = (await call(t, 'GET', '/forms')).json();
      expect(list.find((f: any) => f.id === 'race').version).toBe(latest.version);
      expect((await addVersion(t, 'race')).version).toBe(latest.version + 1);
    });
  });
});
