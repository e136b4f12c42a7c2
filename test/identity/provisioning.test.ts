import { expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import { describeEachEngine, login, openTestDatabase, type TestApp } from '../helpers/test-app.js';
import { hashPassword } from '../../src/platform/crypto/secrets.js';
import { createHash } from 'node:crypto';

describeEachEngine('provisioning and bootstrap', (engine) => {
  async function run<T>(
    database: Awaited<ReturnType<typeof openTestDatabase>>,
    raw: Record<string, any>,
    fn: (t: TestApp) => Promise<T>,
  ) {
    const built = await buildApp(parseConfig({ ...raw, server: { logLevel: 'silent' } }), { database, logger: false });
    try {
      return await fn({ ...built, engine, request: (o) => built.app.inject(o) } as TestApp);
    } finally {
      await built.close();
    }
  }

  it('creates tenant default with user admin on an empty database, with the given or a generated password', async () => {
    const db1 = await openTestDatabase(engine);
    try {
      await run(db1, { identity: { bootstrapAdminPassword: 'given-pw' } }, async (t) => {
        expect(t.bootstrapPassword).toBeUndefined();
        const s = await login(t, 'default', 'admin', 'given-pw');
        expect(s.record.roles).toEqual(['ADMIN', 'FORMS_ADMIN', 'NOTIFICATION_ADMIN', 'TENANT_ADMIN']);
      });
      // A second start changes nothing and prints no new password.
      await run(db1, {}, async (t) => {
        expect(t.bootstrapPassword).toBeUndefined();
        await login(t, 'default', 'admin', 'given-pw');
      });
    } finally {
      await db1.destroy();
    }
    const db2 = await openTestDatabase(engine);
    try {
      await run(db2, {}, async (t) => {
        expect(t.bootstrapPassword).toMatch(/^[A-Za-z0-9_-]{20,}$/);
        await login(t, 'default', 'admin', t.bootstrapPassword!);
      });
    } finally {
      await db2.destroy();
    }
  });

  it('creates the bootstrap admin on the first start beside configured users, but not over a configured admin', async () => {
    const db1 = await openTestDatabase(engine);
    try {
      await run(
        db1,
        {
          identity: { bootstrapAdminPassword: 'boot-pw' },
          tenants: [{ name: 'acme', users: [{ loginName: 'alice', password: 'a-pw' }] }],
        },
        async (t) => {
          await login(t, 'default', 'admin', 'boot-pw');
          await login(t, 'acme', 'alice', 'a-pw');
        },
      );
    } finally {
      await db1.destroy();
    }
    const db2 = await openTestDatabase(engine);
    try {
      const own = {
        tenants: [{ name: 'default', users: [{ loginName: 'admin', password: 'own-pw', roles: ['ADMIN'] }] }],
      };
      await run(db2, { ...own, identity: { bootstrapAdminPassword: 'boot-pw' } }, async (t) => {
        expect(t.bootstrapPassword).toBeUndefined();
        const s = await login(t, 'default', 'admin', 'own-pw');
        expect(s.record.roles).toEqual(['ADMIN']);
      });
    } finally {
      await db2.destroy();
    }
  });

  it('applies the config at every start as an idempotent upsert that deletes nothing', async () => {
    const database = await openTestDatabase(engine);
    const keyHash = createHash('sha256').update('k-hashed-123456').digest('hex');
    const v1 = {
      tenants: [
        {
          name: 'acme',
          users: [
            { loginName: 'alice', password: 'pw-1', roles: ['A'] },
            { loginName: 'bob', passwordHash: await hashPassword('bob-pw') },
          ],
          apiKeys: [
            { name: 'k1', key: 'k-one-123456', roles: ['R'] },
            { name: 'k2', keyHash: `sha256:${keyHash}` },
          ],
        },
      ],
    };
    try {
      await run(database, v1, async () => undefined);
      const before = await database.db
        .selectFrom('users')
        .select(['id', 'password_hash', 'login_name'])
        .orderBy('login_name')
        .execute();
      await run(database, v1, async (t) => {
        const after = await database.db
          .selectFrom('users')
          .select(['id', 'password_hash', 'login_name'])
          .orderBy('login_name')
          .execute();
        expect(after).toEqual(before); // same rows, same hashes: nothing rewritten
        await login(t, 'acme', 'alice', 'pw-1');
        await login(t, 'acme', 'bob', 'bob-pw');
        const k2 = await t.request({
          method: 'GET',
          url: '/cxf/svc-core/authentication/principal',
          headers: { 'x-apikey': 'k-hashed-123456' },
        });
        expect(k2.statusCode).toBe(200);
      });
      // v2 changes alice and drops bob and k1 from the file: alice changes, bob and k1 stay.
      const v2 = { tenants: [{ name: 'acme', users: [{ loginName: 'alice', password: 'pw-2', roles: ['B'] }] }] };
      await run(database, v2, async (t) => {
        const alice = await login(t, 'acme', 'alice', 'pw-2');
        expect(alice.record.roles).toEqual(['B']);
        await login(t, 'acme', 'bob', 'bob-pw');
        const k1 = await t.request({
          method: 'GET',
          url: '/cxf/svc-core/authentication/principal',
          headers: { 'x-apikey': 'k-one-123456' },
        });
        expect(k1.statusCode).toBe(200);
      });
      const users = await database.db.selectFrom('users').select('login_name').orderBy('login_name').execute();
      // alice and bob, plus the bootstrap admin of the first start (tenant default).
      expect(users.map((u) => u.login_name)).toEqual(['admin', 'alice', 'bob']);
    } finally {
      await database.destroy();
    }
  });
});
