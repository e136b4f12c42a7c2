import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { TestIssuer } from '../helpers/oidc-issuer.js';

const PRINCIPAL = '/cxf/svc-core/authentication/principal';

describeEachEngine('OIDC provider mode', (engine) => {
  let issuer: TestIssuer;
  let t: TestApp;
  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    t = await startTestApp(engine, {
      identity: {
        provider: 'oidc',
        // No jwksUrl: found through the issuer's discovery document.
        oidc: {
          issuer: issuer.url,
          audience: 'svc-api',
          rolesClaim: 'realm_access.roles',
          organisationsClaim: 'groups',
          tenant: 'acme',
          timeoutMs: 500,
          jwksCooldownMs: 0,
        },
      },
      tenants: [
        {
          name: 'acme',
          users: [{ loginName: 'alice', password: 'alice-pw' }],
          apiKeys: [{ name: 'robot', key: 'k-oidc-robot-123456', roles: ['R'] }],
        },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
    await issuer.stop();
  });
  const whoami = (token: string) =>
    t.request({ method: 'GET', url: PRINCIPAL, headers: { authorization: `Bearer ${token}` } });

  it("accepts the issuer's tokens with roles, rights and organisations from the configured claims", async () => {
    const token = await issuer.sign({
      preferred_username: 'dora',
      realm_access: { roles: ['FORMS_ADMIN', 'R2'] },
      rights: ['loadModule_x'],
      groups: ['org1'],
    });
    const res = await whoami(token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      kind: 'token',
      tenant: 'acme',
      loginName: 'dora',
      organisations: ['org1'],
      roles: ['FORMS_ADMIN', 'R2'],
      rights: ['loadModule_x'],
    });
  });

  it('refuses the password login with CORE_ERROR_PASSWORD_LOGIN_DISABLED and keeps API keys working', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/cxf/svc-core/authentication',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'tenantname=acme&username=alice&password=alice-pw',
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatchObject({
      messageKey: 'CORE_ERROR_PASSWORD_LOGIN_DISABLED',
      code: 540,
      name: 'AUTHENTICATION_UNAUTHORIZED',
    });
    expect(
      (await t.request({ method: 'GET', url: PRINCIPAL, headers: { 'x-apikey': 'k-oidc-robot-123456' } })).statusCode,
    ).toBe(200);
  });

  it('fetches the JWKS again when a token names an unknown key (rotation at the issuer)', async () => {
    const before = issuer.jwksFetches;
    await issuer.rotate();
    const res = await whoami(await issuer.sign({ preferred_username: 'erin' }));
    expect(res.statusCode).toBe(200);
    expect(issuer.jwksFetches).toBeGreaterThan(before);
  });

  it.each([
    [
      'an expired token',
      () => issuer.sign({ preferred_username: 'x' }, { expiresIn: Math.floor(Date.now() / 1000) - 120 }),
    ],
    ['a wrong audience', () => issuer.sign({ preferred_username: 'x' }, { audience: 'another-api' })],
    ['another issuer', () => issuer.sign({ preferred_username: 'x' }, { issuer: 'http://127.0.0.1:1/evil' })],
    ['no login name claim', () => issuer.sign({})],
  ])('refuses %s with 401', async (_n, make) => {
    expect((await whoami(await make())).statusCode).toBe(401);
  });

  it('answers 401, without hanging, when the JWKS endpoint fails, hangs or serves an unsupported key type', async () => {
    for (const mode of ['down', 'hang', 'unsupported'] as const) {
      await issuer.rotate(); // an unknown kid forces a fetch
      const token = await issuer.sign({ preferred_username: 'frank' });
      issuer.mode = mode;
      const abandoned = issuer.hungRequestsAbandoned;
      const res = await whoami(token);
      expect(res.statusCode, mode).toBe(401);
      expect(res.json().error.code).toBe(540);
      if (mode === 'hang') {
        // The issuer never answers, so the 401 above came from the service's own fetch timeout (without one, the
        // request would hang until the test's hang guard): it also closed the hung request rather than leaving it open.
        await vi.waitFor(() => expect(issuer.hungRequestsAbandoned).toBeGreaterThan(abandoned), { timeout: 60_000 });
      }
      issuer.mode = 'ok';
    }
    // And recovers once the issuer is back.
    expect((await whoami(await issuer.sign({ preferred_username: 'frank' }))).statusCode).toBe(200);
  });
});
