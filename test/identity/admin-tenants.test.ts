import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, login, sessionHeaders, startTestApp, type TestApp } from '../helpers/test-app.js';

const GLOBEX_KEY = 'k-globex-tenant-key-123456';

describeEachEngine('tenant administration by platform administrators', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, {
      identity: { platformAdmins: [{ tenant: 'ops', loginName: 'root' }] },
      tenants: [
        { name: 'ops', users: [{ loginName: 'root', password: 'root-pw-123', roles: ['TENANT_ADMIN'] }] },
        {
          name: 'globex',
          users: [{ loginName: 'gina', password: 'gina-pw-123', roles: ['TENANT_ADMIN', 'ADMIN'] }],
          apiKeys: [{ name: 'globex-key', key: GLOBEX_KEY, roles: ['TENANT_ADMIN'] }],
        },
      ],
    });
  });
  afterAll(() => t.close());

  const tenantsCall = (
    headers: Record<string, string>,
    method: 'GET' | 'POST' | 'PATCH',
    url = '/cxf/svc-core/admin/tenants',
    payload?: object,
  ) => t.request({ method, url, headers, payload });
  const whoami = (headers: Record<string, string>) =>
    t.request({ method: 'GET', url: '/cxf/svc-core/authentication/principal', headers });

  it('refuses tenant administrators, API keys and bootstrap admins that the config does not name (403)', async () => {
    const gina = await login(t, 'globex', 'gina', 'gina-pw-123');
    const admin = await login(t, 'default', 'admin', 'admin-pass-1');
    for (const headers of [sessionHeaders(gina), sessionHeaders(admin), { 'x-apikey': GLOBEX_KEY }]) {
      expect((await tenantsCall(headers, 'GET')).statusCode).toBe(403);
      expect((await tenantsCall(headers, 'POST', undefined, { name: 'evil' })).statusCode).toBe(403);
      expect(
        (await tenantsCall(headers, 'PATCH', '/cxf/svc-core/admin/tenants/ops', { active: false })).statusCode,
      ).toBe(403);
    }
    const root = await login(t, 'ops', 'root', 'root-pw-123');
    const names = (await tenantsCall(sessionHeaders(root), 'GET')).json().items.map((x: any) => x.name);
    expect(names).toEqual(['default', 'globex', 'ops']);
  });

  it('creates a tenant with its first administrator, who administers only it', async () => {
    const root = await login(t, 'ops', 'root', 'root-pw-123');
    const bad = await tenantsCall(sessionHeaders(root), 'POST', undefined, { name: 'no spaces' });
    expect(bad.statusCode).toBe(400);
    const created = await tenantsCall(sessionHeaders(root), 'POST', undefined, {
      name: 'initech',
      admin: { loginName: 'ian', password: 'ian-pw-1234' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ name: 'initech', active: true });
    expect((await tenantsCall(sessionHeaders(root), 'POST', undefined, { name: 'initech' })).statusCode).toBe(409);
    const ian = await login(t, 'initech', 'ian', 'ian-pw-1234');
    expect(ian.record.roles).toEqual(['TENANT_ADMIN']);
    const users = await t.request({
      method: 'GET',
      url: '/cxf/svc-core/admin/users',
      headers: sessionHeaders(ian),
    });
    expect(users.json().items.map((u: any) => u.loginName)).toEqual(['ian']);
  });

  it('deactivates a tenant: logins refused, sessions ended, keys stopped at once; reactivation restores them', async () => {
    const root = await login(t, 'ops', 'root', 'root-pw-123');
    const gina = await login(t, 'globex', 'gina', 'gina-pw-123');
    expect((await whoami({ 'x-apikey': GLOBEX_KEY })).statusCode).toBe(200);
    const off = await tenantsCall(sessionHeaders(root), 'PATCH', '/cxf/svc-core/admin/tenants/globex', {
      active: false,
    });
    expect(off.json()).toMatchObject({ name: 'globex', active: false });
    expect((await whoami({ cookie: gina.cookie })).statusCode).toBe(401);
    expect((await whoami({ 'x-apikey': GLOBEX_KEY })).statusCode).toBe(401);
    await expect(login(t, 'globex', 'gina', 'gina-pw-123')).rejects.toThrow(/401/);
    // Not one's own tenant; an unknown one is 404.
    expect(
      (await tenantsCall(sessionHeaders(root), 'PATCH', '/cxf/svc-core/admin/tenants/ops', { active: false }))
        .statusCode,
    ).toBe(409);
    expect(
      (await tenantsCall(sessionHeaders(root), 'PATCH', '/cxf/svc-core/admin/tenants/nope', { active: false }))
        .statusCode,
    ).toBe(404);

    const on = await tenantsCall(sessionHeaders(root), 'PATCH', '/cxf/svc-core/admin/tenants/globex', { active: true });
    expect(on.json().active).toBe(true);
    expect((await whoami({ 'x-apikey': GLOBEX_KEY })).statusCode).toBe(200);
    const again = await login(t, 'globex', 'gina', 'gina-pw-123');
    const audit = await t.request({ method: 'GET', url: '/cxf/svc-core/audit', headers: sessionHeaders(again, false) });
    const actions = audit.json().items.filter((a: any) => a.action.startsWith('admin.tenant.'));
    expect(actions.map((a: any) => [a.action, a.actor])).toEqual([
      ['admin.tenant.activate', 'ops/root'],
      ['admin.tenant.deactivate', 'ops/root'],
    ]);
  });
});
