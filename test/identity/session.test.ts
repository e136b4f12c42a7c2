import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  describeEachEngine,
  login,
  sessionHeaders,
  startTestApp,
  type TestApp,
} from '../helpers/test-app.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (o: Record<string, string>) => new URLSearchParams(o).toString();

const AUTH_FAILED = {
  error: {
    messageKey: 'CORE_ERROR_IDENTITY_PROVIDER_AUTHENTICATION_FAILED',
    code: 540,
    name: 'AUTHENTICATION_UNAUTHORIZED',
    message: 'Authentication failed',
    properties: {},
  },
};

const CONFIG = {
  identity: {
    sessionTtlSeconds: 600,
    loginThrottle: { maxFailuresPerUser: 3, maxFailuresPerAddress: 1000, windowSeconds: 60 },
  },
  tenants: [
    {
      name: 'acme',
      users: [
        {
          loginName: 'alice',
          password: 'alice-secret',
          email: 'alice@example.com',
          firstName: 'Alice',
          lastName: 'Doe',
          organisations: ['org1'],
          inactiveOrganisations: ['org0'],
          roles: ['FORMS_ADMIN'],
          rights: ['loadModule_forms'],
          customData: { theme: 'dark' },
        },
        { loginName: 'bob', password: 'bob-secret' },
        { loginName: 'ghost', password: 'ghost-secret', active: false },
        { loginName: 'locked', password: 'locked-secret' },
        { loginName: 'umlaut', password: 'pässwörd-✓' },
      ],
    },
    { name: 'other', users: [{ loginName: 'alice', password: 'other-alice' }] },
    { name: 'default', users: [{ loginName: 'admin', password: ADMIN_PASSWORD, roles: ['ADMIN'] }] },
  ],
};

describeEachEngine('session login', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, CONFIG);
  });
  afterAll(() => t.close());

  it('logs in and answers the session record with every field, the cookie and the CSRF token', async () => {
    const before = Date.now();
    const res = await t.request({
      method: 'POST',
      url: '/cxf/svc-core/authentication',
      headers: FORM,
      payload: form({ tenantname: 'acme', username: 'alice', password: 'alice-secret' }),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      loginName: 'alice',
      email: 'alice@example.com',
      firstName: 'Alice',
      lastName: 'Doe',
      organisations: ['org1'],
      inactiveOrganisations: ['org0'],
      roles: ['FORMS_ADMIN'],
      rights: ['loadModule_forms'],
      customData: { theme: 'dark' },
    });
    expect(body.principals['svc.core.UserPrincipal']).toEqual(['alice']);
    expect(body.principals['X-Csrf-Token']).toHaveLength(1);
    expect(typeof body.principals['X-Csrf-Token'][0]).toBe('string');
    expect(body.expirationDate).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(body.expirationDate).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);
    const cookie = String([res.headers['set-cookie']].flat()[0]);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
  });

  it('checks the session with the cookie and refuses without one', async () => {
    const s = await login(t, 'acme', 'alice', 'alice-secret');
    const ok = await t.request({ method: 'GET', url: '/cxf/svc-core/authentication', headers: { cookie: s.cookie } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().loginName).toBe('alice');
    expect(ok.json().principals['X-Csrf-Token']).toEqual([s.csrf]);

    const none = await t.request({ method: 'GET', url: '/cxf/svc-core/authentication' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error).toMatchObject({ messageKey: 'CORE_ERROR_SESSION_INVALID', code: 540 });

    const forged = await t.request({
      method: 'GET',
      url: '/cxf/svc-core/authentication',
      headers: { cookie: 'svc_session=forged' },
    });
    expect(forged.statusCode).toBe(401);
  });

  it('logs out: the session is dead afterwards', async () => {
    const s = await login(t, 'acme', 'bob', 'bob-secret');
    const out = await t.request({ method: 'DELETE', url: '/cxf/svc-core/authentication', headers: sessionHeaders(s) });
    expect(out.statusCode).toBe(200);
    const check = await t.request({
      method: 'GET',
      url: '/cxf/svc-core/authentication',
      headers: { cookie: s.cookie },
    });
    expect(check.statusCode).toBe(401);
    const principal = await t.request({
      method: 'GET',
      url: '/cxf/svc-core/authentication/principal',
      headers: { cookie: s.cookie },
    });
    expect(principal.statusCode).toBe(401);
  });

  it.each([
    ['unknown tenant', { tenantname: 'nope', username: 'alice', password: 'alice-secret' }],
    ['unknown user', { tenantname: 'acme', username: 'nobody', password: 'x' }],
    ['wrong password', { tenantname: 'acme', username: 'bob', password: 'wrong' }],
    ['inactive user', { tenantname: 'acme', username: 'ghost', password: 'ghost-secret' }],
    ["another tenant's password", { tenantname: 'acme', username: 'alice', password: 'other-alice' }],
  ])('refuses %s with 401 and the error object of the spec', async (_name, fields) => {
    const res = await t.request({
      method: 'POST',
      url: '/cxf/svc-core/authentication',
      headers: FORM,
      payload: form(fields),
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(AUTH_FAILED);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('keeps tenants apart: the same login name in two tenants is two users', async () => {
    const other = await login(t, 'other', 'alice', 'other-alice');
    expect(other.record.roles).toEqual([]);
    const who = await t.request({
      method: 'GET',
      url: '/cxf/svc-core/authentication/principal',
      headers: { cookie: other.cookie },
    });
    expect(who.json()).toMatchObject({ tenant: 'other', loginName: 'alice', kind: 'session' });
  });

  it('refuses a JSON body with 415 and the error object', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/cxf/svc-core/authentication',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ tenantname: 'acme', username: 'alice', password: 'alice-secret' }),
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().error).toMatchObject({ messageKey: 'CORE_ERROR_UNSUPPORTED_MEDIA_TYPE', code: 415 });
  });

  it('takes a charset parameter and UTF-8 values, and refuses text/plain or no content type with 415', async () => {
    const ok = await t.request({
      method: 'POST',
      url: '/cxf/svc-core/authentication',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      payload: form({ tenantname: 'acme', username: 'umlaut', password: 'pässwörd-✓' }),
    });
    expect(ok.statusCode).toBe(200);
    for (const headers of [{ 'content-type': 'text/plain' }, {}]) {
      const res = await t.request({
        method: 'POST',
        url: '/cxf/svc-core/authentication',
        headers,
        payload: 'tenantname=acme&username=umlaut&password=x',
      });
      expect(res.statusCode).toBe(415);
      expect(res.json().error.code).toBe(415);
    }
  });

  it.each([
    ['missing password', { tenantname: 'acme', username: 'alice' }, 'body.password'],
    ['missing tenant', { username: 'alice', password: 'x' }, 'body.tenantname'],
    ['over-long user name', { tenantname: 'acme', username: 'a'.repeat(5000), password: 'x' }, 'body.username'],
    ['empty password', { tenantname: 'acme', username: 'alice', password: '' }, 'body.password'],
  ])('answers 400 for %s, naming the field', async (_name, fields, path) => {
    const res = await t.request({
      method: 'POST',
      url: '/cxf/svc-core/authentication',
      headers: FORM,
      payload: form(fields as Record<string, string>),
    });
    expect(res.statusCode).toBe(400);
    const err = res.json().error;
    expect(err).toMatchObject({ messageKey: 'CORE_ERROR_VALIDATION_FAILED', code: 400 });
    expect(err.properties.errors[0].path).toBe(path);
  });

  it('ends an expired session: session check and API calls answer 401', async () => {
    const s = await login(t, 'acme', 'bob', 'bob-secret');
    await t.database.db
      .updateTable('sessions')
      .set({ expires_on: Date.now() - 1 })
      .execute();
    const check = await t.request({
      method: 'GET',
      url: '/cxf/svc-core/authentication',
      headers: { cookie: s.cookie },
    });
    expect(check.statusCode).toBe(401);
    expect(check.json().error.messageKey).toBe('CORE_ERROR_SESSION_INVALID');
  });

  it('slides the expiry forward on use', async () => {
    const s = await login(t, 'acme', 'bob', 'bob-secret');
    const soon = Date.now() + 100_000;
    await t.database.db.updateTable('sessions').set({ expires_on: soon }).execute();
    const check = await t.request({
      method: 'GET',
      url: '/cxf/svc-core/authentication',
      headers: { cookie: s.cookie },
    });
    expect(check.statusCode).toBe(200);
    expect(check.json().expirationDate).toBeGreaterThan(soon + 400_000);
  });

  it('demands the CSRF token of the same session on DELETE, not on GET', async () => {
    const admin = await login(t, 'default', 'admin', ADMIN_PASSWORD);
    const bob = await login(t, 'acme', 'bob', 'bob-secret');
    const url = '/cxf/svc-core/authentication/sessions/all';
    const missing = await t.request({ method: 'DELETE', url, headers: { cookie: admin.cookie } });
    expect(missing.statusCode).toBe(403);
    expect(missing.json().error.messageKey).toBe('CORE_ERROR_CSRF_TOKEN_INVALID');
    const foreign = await t.request({
      method: 'DELETE',
      url,
      headers: { cookie: admin.cookie, 'x-csrf-token': bob.csrf },
    });
    expect(foreign.statusCode).toBe(403);
    const get = await t.request({
      method: 'GET',
      url: '/cxf/svc-core/authentication/principal',
      headers: { cookie: admin.cookie },
    });
    expect(get.statusCode).toBe(200);
    // Nothing happened: bob's session still lives.
    const bobCheck = await t.request({
      method: 'GET',
      url: '/cxf/svc-core/authentication',
      headers: { cookie: bob.cookie },
    });
    expect(bobCheck.statusCode).toBe(200);
  });

  it('lets ADMIN end every session of its own tenant only', async () => {
    const admin = await login(t, 'default', 'admin', ADMIN_PASSWORD);
    const acmeBob = await login(t, 'acme', 'bob', 'bob-secret');
    const notAdmin = await t.request({
      method: 'DELETE',
      url: '/cxf/svc-core/authentication/sessions/all',
      headers: sessionHeaders(acmeBob),
    });
    expect(notAdmin.statusCode).toBe(403);
    const res = await t.request({
      method: 'DELETE',
      url: '/cxf/svc-core/authentication/sessions/all',
      headers: sessionHeaders(admin),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().deleted).toBeGreaterThanOrEqual(1);
    expect(
      (await t.request({ method: 'GET', url: '/cxf/svc-core/authentication', headers: { cookie: admin.cookie } }))
        .statusCode,
    ).toBe(401);
    expect(
      (await t.request({ method: 'GET', url: '/cxf/svc-core/authentication', headers: { cookie: acmeBob.cookie } }))
        .statusCode,
    ).toBe(200);
  });

  it('throttles repeated failures for one user with 429, even for the right password, and leaves others alone', async () => {
    const attempt = (password: string) =>
      t.request({
        method: 'POST',
        url: '/cxf/svc-core/authentication',
        headers: FORM,
        payload: form({ tenantname: 'acme', username: 'locked', password }),
      });
    for (let i = 0; i < 3; i++) expect((await attempt('wrong')).statusCode).toBe(401);
    const blocked = await attempt('locked-secret');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error).toMatchObject({ messageKey: 'CORE_ERROR_TOO_MANY_REQUESTS', code: 429 });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    await login(t, 'acme', 'bob', 'bob-secret');
  });
});

describe('error object', () => {
  it('answers an unknown route, a bad URL and an absurd path parameter with the error object, never a stack', async () => {
    const t = await startTestApp('sqlite');
    try {
      const res = await t.request({ method: 'GET', url: '/nope?x=1' });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatchObject({ code: 404, name: 'NOT_FOUND', properties: {} });
      const long = await t.request({
        method: 'GET',
        url: `/cxf/svc-forms/forms/${'a'.repeat(5000)}`,
        headers: { 'x-apikey': 'x' },
      });
      expect(long.statusCode).toBe(414);
      expect(long.json().error).toMatchObject({ code: 414, messageKey: 'CORE_ERROR_URI_TOO_LONG' });
      expect(long.body).not.toContain('aaaa');
      const bad = await t.request({ method: 'GET', url: '/cxf/svc-forms/forms/%E0%A4%A' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe(400);
    } finally {
      await t.close();
    }
  });
});
