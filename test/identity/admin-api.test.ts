import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  describeEachEngine,
  login,
  sessionHeaders,
  startTestApp,
  type SessionCredentials,
  type TestApp,
} from '../helpers/test-app.js';

const ADMIN_KEY = 'k-acme-admin-key-123456';
const PLAIN_KEY = 'k-acme-plain-key-123456';
const OTHER_KEY = 'k-globex-admin-key-123456';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describeEachEngine('identity administration over HTTP', (engine) => {
  let t: TestApp;
  let boss: SessionCredentials;
  beforeAll(async () => {
    t = await startTestApp(engine, {
      identity: {
        loginThrottle: { maxFailuresPerAccountAndAddress: 3, maxFailuresPerAccount: 3, maxFailuresPerAddress: 1000 },
      },
      tenants: [
        {
          name: 'acme',
          users: [
            { loginName: 'boss', password: 'boss-pw-123', roles: ['TENANT_ADMIN'] },
            { loginName: 'plain', password: 'plain-pw-123', roles: ['ADMIN'] },
            { loginName: 'alice', password: 'alice-pw-123', email: 'Alice@Example.com', firstName: 'Alice' },
            { loginName: 'bob', password: 'bob-pw-1234', lastName: 'Builder' },
          ],
          apiKeys: [
            { name: 'admin-key', key: ADMIN_KEY, rights: ['TENANT_ADMIN'] },
            { name: 'plain-key', key: PLAIN_KEY, roles: ['ADMIN'] },
          ],
        },
        {
          name: 'globex',
          users: [{ loginName: 'gina', password: 'gina-pw-123', roles: ['TENANT_ADMIN'] }],
          apiKeys: [{ name: 'globex-admin', key: OTHER_KEY, roles: ['TENANT_ADMIN'] }],
        },
      ],
    });
    boss = await login(t, 'acme', 'boss', 'boss-pw-123');
  });
  afterAll(() => t.close());

  const asBoss = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    t.request({ method, url: `/cxf/svc-core/admin${url}`, headers: sessionHeaders(boss), payload: payload as object });
  const withKey = (key: string, method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    t.request({ method, url: `/cxf/svc-core/admin${url}`, headers: { 'x-apikey': key }, payload: payload as object });
  const whoami = (headers: Record<string, string>) =>
    t.request({ method: 'GET', url: '/cxf/svc-core/authentication/principal', headers });
  const tryLogin = (tenantname: string, username: string, password: string) =>
    t.request({
      method: 'POST',
      url: '/cxf/svc-core/authentication',
      headers: FORM,
      payload: new URLSearchParams({ tenantname, username, password }).toString(),
    });
  async function auditActions(tenant: string, password: string, user: string): Promise<any[]> {
    const s = await login(t, tenant, user, password);
    const res = await t.request({
      method: 'GET',
      url: '/cxf/svc-core/audit?limit=1000',
      headers: sessionHeaders(s, false),
    });
    expect(res.statusCode).toBe(200);
    return res.json().items;
  }

  it('grants TENANT_ADMIN to the bootstrap admin', async () => {
    const s = await login(t, 'default', 'admin', ADMIN_PASSWORD);
    expect(s.record.roles).toContain('TENANT_ADMIN');
    const res = await t.request({ method: 'GET', url: '/cxf/svc-core/admin/users', headers: sessionHeaders(s) });
    expect(res.statusCode).toBe(200);
    expect(res.json().items.map((u: any) => u.loginName)).toEqual(['admin']);
  });

  it('refuses callers without TENANT_ADMIN (403), also before reading a body, and without credential (401)', async () => {
    const plain = await login(t, 'acme', 'plain', 'plain-pw-123');
    const cases: Array<[string, string, unknown]> = [
      ['GET', '/users', undefined],
      ['POST', '/users', { loginName: 'x', password: 'long-enough-1' }],
      ['POST', '/users', { nonsense: true }],
      ['GET', '/users/alice', undefined],
      ['PATCH', '/users/alice', { roles: ['TENANT_ADMIN'] }],
      ['DELETE', '/users/alice', undefined],
      ['PUT', '/users/alice/password', { password: 'long-enough-1' }],
      ['POST', '/users/alice/unlock', undefined],
      ['GET', '/users/alice/sessions', undefined],
      ['DELETE', '/users/alice/sessions', undefined],
      ['GET', '/api-keys', undefined],
      ['POST', '/api-keys', { name: 'k' }],
      ['DELETE', '/api-keys/admin-key', undefined],
      ['PUT', '/api-keys/admin-key/expiry', { expiresOn: null }],
      ['GET', '/tenants', undefined],
    ];
    for (const [method, url, payload] of cases) {
      const bySession = await t.request({
        method: method as 'GET',
        url: `/cxf/svc-core/admin${url}`,
        headers: sessionHeaders(plain),
        payload: payload as object,
      });
      expect(bySession.statusCode, `${method} ${url}`).toBe(403);
      expect(bySession.json().error.messageKey).toBe('CORE_ERROR_FORBIDDEN');
      const byKey = await withKey(PLAIN_KEY, method as 'GET', url, payload);
      expect(byKey.statusCode, `${method} ${url} by key`).toBe(403);
      const anonymous = await t.request({ method: method as 'GET', url: `/cxf/svc-core/admin${url}` });
      expect(anonymous.statusCode).toBe(401);
    }
    // Nothing changed.
    expect((await asBoss('GET', '/users/alice')).json().roles).toEqual([]);
    expect((await asBoss('GET', '/api-keys')).json().total).toBe(2);
  });

  it('lists users with search and paging, without password hashes', async () => {
    const all = await asBoss('GET', '/users');
    expect(all.statusCode).toBe(200);
    expect(all.json().total).toBe(4);
    expect(all.json().items.map((u: any) => u.loginName)).toEqual(['alice', 'bob', 'boss', 'plain']);
    expect(all.body).not.toMatch(/scrypt|passwordHash/);
    expect(all.json().items[0]).toMatchObject({ loginName: 'alice', email: 'Alice@Example.com', hasPassword: true });
    const page = await asBoss('GET', '/users?start=1&limit=2');
    expect(page.json()).toMatchObject({ total: 4, items: [{ loginName: 'bob' }, { loginName: 'boss' }] });
    // Case-insensitive, in login name, e-mail and names; LIKE wildcards are literal.
    expect((await asBoss('GET', '/users?search=EXAMPLE')).json().items.map((u: any) => u.loginName)).toEqual(['alice']);
    expect((await asBoss('GET', '/users?search=builder')).json().items.map((u: any) => u.loginName)).toEqual(['bob']);
    expect((await asBoss('GET', '/users?search=%25')).json().total).toBe(0);
    expect((await asBoss('GET', '/users?search=_')).json().total).toBe(0);
  });

  it('validates input with the error object and writes nothing', async () => {
    const bad: Array<[string, string, unknown]> = [
      ['GET', '/users?limit=0', undefined],
      ['GET', '/users?start=-1', undefined],
      ['POST', '/users', { loginName: '', password: 'long-enough-1' }],
      ['POST', '/users', { loginName: 'dave', password: 'short' }],
      ['POST', '/users', { loginName: 'dave', roles: 'ADMIN' }],
      ['POST', '/users', { loginName: 'dave', extra: 1 }],
      ['PATCH', '/users/alice', {}],
      ['PATCH', '/users/alice', { roles: ['A', 'A'] }],
      ['PATCH', '/users/alice', { active: 'no' }],
      ['PUT', '/users/alice/password', { password: 'short' }],
      ['POST', '/api-keys', { name: 'k', expiresOn: 'tomorrow' }],
      ['PUT', '/api-keys/admin-key/expiry', {}],
      ['DELETE', '/users/alice/sessions/not-a-session-id', undefined],
    ];
    for (const [method, url, payload] of bad) {
      const res = await asBoss(method as 'GET', url, payload);
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)}`).toBe(400);
      expect(res.json().error).toMatchObject({ code: 400, name: 'VALIDATION_FAILED' });
    }
    expect((await asBoss('GET', '/users')).json().total).toBe(4);
    expect((await asBoss('GET', '/users/alice')).json()).toMatchObject({ roles: [], active: true });
    await login(t, 'acme', 'alice', 'alice-pw-123');
  });

  it('creates, reads, updates and deletes a user, with audit records naming the admin', async () => {
    const created = await asBoss('POST', '/users', {
      loginName: 'carol',
      password: 'carol-pw-123',
      email: 'c@example.com',
      roles: ['FORMS_ADMIN'],
      organisations: ['sales'],
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ loginName: 'carol', roles: ['FORMS_ADMIN'], active: true });
    expect((await asBoss('POST', '/users', { loginName: 'carol' })).statusCode).toBe(409);
    const s = await login(t, 'acme', 'carol', 'carol-pw-123');
    expect(s.record.organisations).toEqual(['sales']);

    const changed = await asBoss('PATCH', '/users/carol', {
      firstName: 'Carol',
      lastName: 'C',
      email: 'carol@example.com',
      organisations: ['support'],
      roles: ['X'],
      rights: ['R'],
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({
      firstName: 'Carol',
      organisations: ['support'],
      roles: ['X'],
      rights: ['R'],
    });
    // The change is seen by the user's live session at once on this instance.
    expect((await whoami({ cookie: s.cookie })).json()).toMatchObject({ roles: ['X'], rights: ['R'] });
    expect((await asBoss('GET', '/users/carol')).json().email).toBe('carol@example.com');

    const deleted = await asBoss('DELETE', '/users/carol');
    expect(deleted.json()).toEqual({ sessionsEnded: 1 });
    expect((await whoami({ cookie: s.cookie })).statusCode).toBe(401);
    expect((await asBoss('GET', '/users/carol')).statusCode).toBe(404);
    expect((await asBoss('DELETE', '/users/carol')).statusCode).toBe(404);
    expect((await tryLogin('acme', 'carol', 'carol-pw-123')).statusCode).toBe(401);

    // The audit log is read by role ADMIN (plain), which boss does not have.
    const audit = await auditActions('acme', 'plain-pw-123', 'plain');
    const mine = audit.filter((a) => a.action.startsWith('admin.') && a.detail.loginName === 'carol');
    expect(mine.map((a) => a.action).sort()).toEqual(['admin.user.create', 'admin.user.delete', 'admin.user.update']);
    for (const a of mine) expect(a).toMatchObject({ actor: 'boss', outcome: 'success' });
    expect(JSON.stringify(audit)).not.toContain('carol-pw-123');
  });

  it('sets a password, which ends every session of the user', async () => {
    const s1 = await login(t, 'acme', 'bob', 'bob-pw-1234');
    const s2 = await login(t, 'acme', 'bob', 'bob-pw-1234');
    const listed = await asBoss('GET', '/users/bob/sessions');
    expect(listed.json().items).toHaveLength(2);
    expect(listed.body).not.toContain(s1.cookie.split('=')[1]);
    const set = await asBoss('PUT', '/users/bob/password', { password: 'bob-new-pw-1' });
    expect(set.json()).toEqual({ sessionsEnded: 2 });
    for (const s of [s1, s2]) expect((await whoami({ cookie: s.cookie })).statusCode).toBe(401);
    expect((await tryLogin('acme', 'bob', 'bob-pw-1234')).statusCode).toBe(401);
    await login(t, 'acme', 'bob', 'bob-new-pw-1');
    const hash = await t.database.db
      .selectFrom('users')
      .select('password_hash')
      .where('login_name', '=', 'bob')
      .executeTakeFirstOrThrow();
    expect(hash.password_hash).toMatch(/^scrypt\$/);
  });

  it('lists and ends one or all sessions of a user', async () => {
    const a = await login(t, 'acme', 'alice', 'alice-pw-123');
    const b = await login(t, 'acme', 'alice', 'alice-pw-123');
    const items = (await asBoss('GET', '/users/alice/sessions')).json().items;
    expect(items.length).toBeGreaterThanOrEqual(2);
    expect(items[0]).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{64}$/), remoteAddress: '127.0.0.1' });
    // Which listed id is a's: end each until a stops working, and check b still works after the first.
    const one = await asBoss('DELETE', `/users/alice/sessions/${items[0].id}`);
    expect(one.json()).toEqual({ sessionsEnded: 1 });
    const statuses = await Promise.all([a, b].map((s) => whoami({ cookie: s.cookie }).then((r) => r.statusCode)));
    expect(statuses.filter((c) => c === 401)).toHaveLength(1);
    expect((await asBoss('DELETE', `/users/alice/sessions/${items[0].id}`)).statusCode).toBe(404);
    const all = await asBoss('DELETE', '/users/alice/sessions');
    expect(all.json().sessionsEnded).toBeGreaterThanOrEqual(1);
    for (const s of [a, b]) expect((await whoami({ cookie: s.cookie })).statusCode).toBe(401);
    expect((await asBoss('GET', '/users/alice/sessions')).json().items).toEqual([]);
  });

  it('deactivates a user (its sessions end, it cannot log in) and reactivates it', async () => {
    const s = await login(t, 'acme', 'alice', 'alice-pw-123');
    const off = await asBoss('PATCH', '/users/alice', { active: false });
    expect(off.json().active).toBe(false);
    expect((await whoami({ cookie: s.cookie })).statusCode).toBe(401);
    expect((await tryLogin('acme', 'alice', 'alice-pw-123')).statusCode).toBe(401);
    expect((await asBoss('PATCH', '/users/alice', { active: true })).json().active).toBe(true);
    await login(t, 'acme', 'alice', 'alice-pw-123');
    // Not oneself: the admin cannot lock itself out.
    expect((await asBoss('PATCH', '/users/boss', { active: false })).statusCode).toBe(409);
    expect((await asBoss('DELETE', '/users/boss')).statusCode).toBe(409);
  });

  it('unlocks an account the login throttle holds back', async () => {
    for (let i = 0; i < 3; i++) expect((await tryLogin('acme', 'alice', 'wrong')).statusCode).toBe(401);
    const held = await tryLogin('acme', 'alice', 'alice-pw-123');
    expect(held.statusCode).toBe(429);
    const unlocked = await asBoss('POST', '/users/alice/unlock');
    expect(unlocked.json()).toEqual({ wasHeld: true });
    expect((await tryLogin('acme', 'alice', 'alice-pw-123')).statusCode).toBe(200);
    expect((await asBoss('POST', '/users/alice/unlock')).json()).toEqual({ wasHeld: false });
    expect((await asBoss('POST', '/users/nobody/unlock')).statusCode).toBe(404);
  });

  it('manages API keys: listed without secrets, created once, expiry set, revoked at once', async () => {
    const created = await asBoss('POST', '/api-keys', {
      name: 'robot',
      roles: ['R1'],
      expiresOn: '2999-01-01T00:00:00Z',
    });
    expect(created.statusCode).toBe(201);
    const { key, apiKey } = created.json();
    expect(key).toMatch(/^sk-/);
    expect(apiKey).toMatchObject({ name: 'robot', roles: ['R1'], expiresOn: '2999-01-01T00:00:00.000Z' });
    expect((await asBoss('POST', '/api-keys', { name: 'robot' })).statusCode).toBe(409);
    const list = await asBoss('GET', '/api-keys');
    expect(list.json().items.map((k: any) => k.name)).toEqual(['admin-key', 'plain-key', 'robot']);
    expect(list.body).not.toContain(key);
    expect(list.body).not.toMatch(/sha256|keyHash/);
    expect((await whoami({ 'x-apikey': key })).json()).toMatchObject({ loginName: 'robot', roles: ['R1'] });

    // An expiry in the past stops it at once (the key is in this instance's cache by now).
    const past = await asBoss('PUT', '/api-keys/robot/expiry', { expiresOn: '2020-01-01T00:00:00Z' });
    expect(past.json().expiresOn).toBe('2020-01-01T00:00:00.000Z');
    expect((await whoami({ 'x-apikey': key })).statusCode).toBe(401);
    expect((await asBoss('PUT', '/api-keys/robot/expiry', { expiresOn: null })).json().expiresOn).toBeNull();
    expect((await whoami({ 'x-apikey': key })).statusCode).toBe(200);

    const revoked = await asBoss('DELETE', '/api-keys/robot');
    expect(revoked.json()).toEqual({ revoked: true });
    expect((await whoami({ 'x-apikey': key })).statusCode).toBe(401);
    expect((await asBoss('DELETE', '/api-keys/robot')).statusCode).toBe(404);
    expect((await asBoss('PUT', '/api-keys/robot/expiry', { expiresOn: null })).statusCode).toBe(404);

    // An API key with the right administers too; the audit names it.
    const byKey = await withKey(ADMIN_KEY, 'POST', '/api-keys', { name: 'robot-2' });
    expect(byKey.statusCode).toBe(201);
    const audit = await auditActions('acme', 'plain-pw-123', 'plain');
    const keyActions = audit.filter((a) => a.action.startsWith('admin.apikey.'));
    expect(keyActions.map((a) => [a.action, a.actor, a.detail.name])).toEqual(
      expect.arrayContaining([
        ['admin.apikey.create', 'boss', 'robot'],
        ['admin.apikey.expiry', 'boss', 'robot'],
        ['admin.apikey.revoke', 'boss', 'robot'],
        ['admin.apikey.create', 'admin-key', 'robot-2'],
      ]),
    );
    expect(JSON.stringify(audit)).not.toContain(key);
  });

  it("never shows nor touches another tenant's users, keys or sessions (404)", async () => {
    const gina = await login(t, 'globex', 'gina', 'gina-pw-123');
    const asGina = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
      t.request({
        method,
        url: `/cxf/svc-core/admin${url}`,
        headers: sessionHeaders(gina),
        payload: payload as object,
      });
    expect((await asGina('GET', '/users')).json().items.map((u: any) => u.loginName)).toEqual(['gina']);
    expect((await asGina('GET', '/users?search=alice')).json().total).toBe(0);
    expect((await asGina('GET', '/api-keys')).json().items.map((k: any) => k.name)).toEqual(['globex-admin']);
    const aliceSession = await login(t, 'acme', 'alice', 'alice-pw-123');
    const cases: Array<[string, string, unknown]> = [
      ['GET', '/users/alice', undefined],
      ['PATCH', '/users/alice', { roles: ['TENANT_ADMIN'] }],
      ['PATCH', '/users/alice', { active: false }],
      ['PUT', '/users/alice/password', { password: 'taken-over-1' }],
      ['DELETE', '/users/alice', undefined],
      ['GET', '/users/alice/sessions', undefined],
      ['DELETE', '/users/alice/sessions', undefined],
      ['POST', '/users/alice/unlock', undefined],
      ['DELETE', '/api-keys/admin-key', undefined],
      ['PUT', '/api-keys/admin-key/expiry', { expiresOn: '2020-01-01T00:00:00Z' }],
    ];
    for (const [method, url, payload] of cases) {
      const bySession = await asGina(method as 'GET', url, payload);
      expect(bySession.statusCode, `${method} ${url}`).toBe(404);
      expect((await withKey(OTHER_KEY, method as 'GET', url, payload)).statusCode).toBe(404);
    }
    // acme is as it was.
    expect((await asBoss('GET', '/users/alice')).json()).toMatchObject({ roles: [], active: true });
    expect((await whoami({ cookie: aliceSession.cookie })).statusCode).toBe(200);
    expect((await whoami({ 'x-apikey': ADMIN_KEY })).statusCode).toBe(200);
    await login(t, 'acme', 'alice', 'alice-pw-123');
    // And gina's own tenant gained no user.
    expect((await asGina('GET', '/users')).json().total).toBe(1);
  });

  it('is in the OpenAPI document with schemas for every response', async () => {
    const doc = (await t.request({ method: 'GET', url: '/docs/json' })).json();
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/cxf/svc-core/admin'));
    expect(paths.length).toBeGreaterThanOrEqual(9);
    for (const p of paths) {
      for (const [method, op] of Object.entries<any>(doc.paths[p])) {
        expect(op.summary, `${method} ${p}`).toBeTruthy();
        expect(op.tags).toEqual(['administration']);
        for (const status of ['400', '401', '403'])
          expect(op.responses[status], `${method} ${p} ${status}`).toBeDefined();
        expect(Object.keys(op.responses).some((s) => s.startsWith('2'))).toBe(true);
      }
    }
  });
});
