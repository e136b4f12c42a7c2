import { afterAll, beforeAll, expect, it } from 'vitest';
import { createIdentityAdmin, type IdentityAdmin } from '../../src/modules/identity/index.js';
import { describeEachEngine, login, startTestApp, type TestApp } from '../helpers/test-app.js';

const KEY = 'k-cache-test-123456';

describeEachEngine('credential cache', (engine) => {
  let t: TestApp;
  let admin: IdentityAdmin;
  beforeAll(async () => {
    t = await startTestApp(engine, {
      identity: { credentialCacheSeconds: 0.3 },
      tenants: [
        {
          name: 'acme',
          users: [{ loginName: 'alice', password: 'alice-pw', roles: ['OLD'] }],
          apiKeys: [{ name: 'robot', key: KEY, roles: ['OLD'] }],
        },
      ],
    });
    // The admin CLI's path: another process changing the same database.
    admin = createIdentityAdmin(t.database.db, t.database.dialect);
  });
  afterAll(() => t.close());

  const whoami = (headers: Record<string, string>) =>
    t.request({ method: 'GET', url: '/cxf/svc-core/authentication/principal', headers });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('applies changed grants and deactivation within the cache time, and ends sessions at once', async () => {
    const s = await login(t, 'acme', 'alice', 'alice-pw');
    expect((await whoami({ cookie: s.cookie })).json().roles).toEqual(['OLD']);
    expect((await whoami({ 'x-apikey': KEY })).json().roles).toEqual(['OLD']);

    await admin.setUser('acme', 'alice', { roles: ['NEW'] });
    await admin.setApiKey('acme', 'robot', { key: KEY, roles: ['NEW'] });
    await pause(400);
    expect((await whoami({ cookie: s.cookie })).json().roles).toEqual(['NEW']);
    expect((await whoami({ 'x-apikey': KEY })).json().roles).toEqual(['NEW']);

    await admin.setUser('acme', 'alice', { active: false });
    await pause(400);
    expect((await whoami({ cookie: s.cookie })).statusCode).toBe(401);
    await admin.setUser('acme', 'alice', { active: true });
    await pause(400);

    // Logout is never cached: the very next call is refused.
    expect((await whoami({ cookie: s.cookie })).statusCode).toBe(200);
    await t.request({
      method: 'DELETE',
      url: '/cxf/svc-core/authentication',
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
    });
    expect((await whoami({ cookie: s.cookie })).statusCode).toBe(401);
  });
});
