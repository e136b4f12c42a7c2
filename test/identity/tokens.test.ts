import { afterAll, beforeAll, expect, it } from 'vitest';
import { SignJWT, createLocalJWKSet, importJWK, jwtVerify, base64url, decodeProtectedHeader } from 'jose';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import { describeEachEngine, login, sessionHeaders, startTestApp, type TestApp } from '../helpers/test-app.js';

const KEY = 'k-token-test-123456';
const CONFIG = {
  tenants: [
    {
      name: 'acme',
      users: [
        { loginName: 'alice', password: 'alice-pw', organisations: ['o1'], roles: ['R1'], rights: ['x'] },
        { loginName: 'root', password: 'root-pw', roles: ['ADMIN'] },
      ],
      apiKeys: [{ name: 'robot', key: KEY, organisations: ['o2'], roles: ['R2'], rights: ['y'] }],
    },
  ],
};
const PRINCIPAL = '/cxf/svc-core/authentication/principal';
const TOKEN = '/cxf/svc-core/authentication/token';

describeEachEngine('access tokens', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, CONFIG);
  });
  afterAll(() => t.close());

  const mint = async (headers: Record<string, string>) => {
    const res = await t.request({ method: 'POST', url: TOKEN, headers });
    expect(res.statusCode).toBe(200);
    return res.json().access_token as string;
  };
  const whoami = (token: string) =>
    t.request({ method: 'GET', url: PRINCIPAL, headers: { authorization: `Bearer ${token}` } });

  /** Signs with the platform's own current private key, straight from the database. */
  async function forge(
    claims: Record<string, unknown>,
    opts: { exp?: number; iat?: number; aud?: string; iss?: string } = {},
  ) {
    const row = await t.database.db
      .selectFrom('signing_keys')
      .select(['kid', 'alg', 'private_jwk'])
      .orderBy('sign_until', 'desc')
      .executeTakeFirstOrThrow();
    const jwk = typeof row.private_jwk === 'string' ? JSON.parse(row.private_jwk) : row.private_jwk;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      tenant: 'acme',
      tid: (await t.database.db.selectFrom('tenants').select('id').where('name', '=', 'acme').executeTakeFirstOrThrow())
        .id,
      org: [],
      roles: ['EVIL'],
      rights: [],
      ...claims,
    })
      .setProtectedHeader({ alg: row.alg, kid: row.kid })
      .setIssuer(opts.iss ?? 'svc-platform')
      .setAudience(opts.aud ?? 'svc-platform')
      .setSubject('alice')
      .setIssuedAt(opts.iat ?? now)
      .setExpirationTime(opts.exp ?? now + 300)
      .sign(await importJWK(jwk, row.alg));
  }

  it('mints a token for an API key that acts as the same principal', async () => {
    const res = await t.request({ method: 'POST', url: TOKEN, headers: { 'x-apikey': KEY } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 300 });
    const who = await whoami(body.access_token);
    expect(who.statusCode).toBe(200);
    expect(who.json()).toEqual({
      kind: 'token',
      tenant: 'acme',
      loginName: 'robot',
      organisations: ['o2'],
      roles: ['R2'],
      rights: ['y'],
    });
  });

  it('mints for a session only with its CSRF token; a token cannot mint another', async () => {
    const s = await login(t, 'acme', 'alice', 'alice-pw');
    expect((await t.request({ method: 'POST', url: TOKEN, headers: { cookie: s.cookie } })).statusCode).toBe(403);
    const token = await mint(sessionHeaders(s));
    expect((await whoami(token)).json()).toMatchObject({ loginName: 'alice', roles: ['R1'], organisations: ['o1'] });
    const again = await t.request({ method: 'POST', url: TOKEN, headers: { authorization: `Bearer ${token}` } });
    expect(again.statusCode).toBe(403);
  });

  it('publishes the signing keys as a JWKS that verifies the tokens (asymmetric, no private parts)', async () => {
    const token = await mint({ 'x-apikey': KEY });
    const res = await t.request({ method: 'GET', url: '/cxf/svc-core/.well-known/jwks.json' });
    expect(res.statusCode).toBe(200);
    const jwks = res.json();
    for (const k of jwks.keys) {
      expect(k.d).toBeUndefined();
      expect(['EdDSA', 'ES256']).toContain(k.alg);
    }
    expect(jwks.keys.map((k: any) => k.kid)).toContain(decodeProtectedHeader(token).kid);
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), {
      issuer: 'svc-platform',
      audience: 'svc-platform',
    });
    expect(payload.sub).toBe('robot');
  });

  it.each([
    [
      'tampered payload',
      async (tok: string) => {
        const [h, p, s] = tok.split('.');
        const claims = JSON.parse(new TextDecoder().decode(base64url.decode(p)));
        claims.roles = ['ADMIN'];
        return `${h}.${base64url.encode(JSON.stringify(claims))}.${s}`;
      },
    ],
    ['tampered signature', async (tok: string) => tok.slice(0, -4) + (tok.endsWith('AAAA') ? 'BBBB' : 'AAAA')],
    [
      'alg none',
      async (tok: string) => {
        const p = tok.split('.')[1];
        return `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${p}.`;
      },
    ],
    ['garbage', async () => 'not-a-jwt'],
    ['three dots of nothing', async () => '..'],
  ])('refuses a %s token with 401', async (_n, alter) => {
    const token = await mint({ 'x-apikey': KEY });
    const res = await whoami(await alter(token));
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe(540);
  });

  it('refuses expired, wrong-audience, wrong-issuer and future-dated tokens, and tolerates small skew', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await whoami(await forge({}, { exp: now - 60 }))).statusCode).toBe(401);
    expect((await whoami(await forge({}, { aud: 'someone-else' }))).statusCode).toBe(401);
    expect((await whoami(await forge({}, { iss: 'https://evil.example' }))).statusCode).toBe(401);
    expect((await whoami(await forge({}, { iat: now + 600, exp: now + 900 }))).statusCode).toBe(401);
    expect((await whoami(await forge({}, { iat: now + 10 }))).statusCode).toBe(200);
    expect((await whoami(await forge({}, { exp: now - 5 }))).statusCode).toBe(200);
    expect((await whoami(await forge({ roles: 'ADMIN' }))).statusCode).toBe(401);
  });

  it('refuses a token signed by an unknown key', async () => {
    const { generateKeyPair } = await import('jose');
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const token = await new SignJWT({ tenant: 'acme', tid: 'x', org: [], roles: [], rights: [] })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'not-ours' })
      .setIssuer('svc-platform')
      .setAudience('svc-platform')
      .setSubject('alice')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    expect((await whoami(token)).statusCode).toBe(401);
  });

  it('shares keys and sessions between instances on one database, and rotation keeps old tokens valid', async () => {
    const other = await buildApp(parseConfig({ server: { logLevel: 'silent' } }), {
      database: t.database,
      logger: false,
    });
    try {
      const fromA = await mint({ 'x-apikey': KEY });
      expect(
        (await other.app.inject({ method: 'GET', url: PRINCIPAL, headers: { authorization: `Bearer ${fromA}` } }))
          .statusCode,
      ).toBe(200);

      const s = await login(t, 'acme', 'alice', 'alice-pw');
      expect(
        (await other.app.inject({ method: 'GET', url: '/cxf/svc-core/authentication', headers: { cookie: s.cookie } }))
          .statusCode,
      ).toBe(200);
      await other.app.inject({ method: 'DELETE', url: '/cxf/svc-core/authentication', headers: sessionHeaders(s) });
      expect(
        (await t.request({ method: 'GET', url: '/cxf/svc-core/authentication', headers: { cookie: s.cookie } }))
          .statusCode,
      ).toBe(401);
    } finally {
      await other.close();
    }
    // Rotation: the current key's signing period ends (set in the database, as time would); an instance
    // started afterwards makes a new key, and the old key's tokens stay valid everywhere.
    const fromA = await mint({ 'x-apikey': KEY });
    await t.database.db
      .updateTable('signing_keys')
      .set({ sign_until: Date.now() - 1 })
      .execute();
    const later = await buildApp(parseConfig({ server: { logLevel: 'silent' } }), {
      database: t.database,
      logger: false,
    });
    try {
      const fromB = (await later.app.inject({ method: 'POST', url: TOKEN, headers: { 'x-apikey': KEY } })).json()
        .access_token;
      expect(decodeProtectedHeader(fromB).kid).not.toBe(decodeProtectedHeader(fromA).kid);
      expect((await whoami(fromB)).statusCode).toBe(200); // A learns B's new key from the database
      expect(
        (await later.app.inject({ method: 'GET', url: PRINCIPAL, headers: { authorization: `Bearer ${fromA}` } }))
          .statusCode,
      ).toBe(200);
      const jwks = (await t.request({ method: 'GET', url: '/cxf/svc-core/.well-known/jwks.json' })).json();
      expect(jwks.keys.map((k: any) => k.kid)).toEqual(
        expect.arrayContaining([decodeProtectedHeader(fromA).kid, decodeProtectedHeader(fromB).kid]),
      );
    } finally {
      await later.close();
    }
  });

  it('audits logins, failures, logouts, token minting and key use, per tenant, for ADMIN only', async () => {
    await t.request({
      method: 'POST',
      url: '/cxf/svc-core/authentication',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'audit-test' },
      payload: 'tenantname=acme&username=alice&password=wrong',
    });
    const s = await login(t, 'acme', 'alice', 'alice-pw');
    await t.request({ method: 'DELETE', url: '/cxf/svc-core/authentication', headers: sessionHeaders(s) });
    const root = await login(t, 'acme', 'root', 'root-pw');
    const res = await t.request({
      method: 'GET',
      url: '/cxf/svc-core/audit?limit=100',
      headers: { cookie: root.cookie },
    });
    expect(res.statusCode).toBe(200);
    const items = res.json().items as any[];
    const has = (action: string, outcome: string, actor: string) =>
      items.some((i) => i.action === action && i.outcome === outcome && i.actor === actor);
    expect(has('login', 'failure', 'alice')).toBe(true);
    expect(items.find((i) => i.action === 'login' && i.outcome === 'failure')).toMatchObject({
      remoteAddress: '127.0.0.1',
      userAgent: 'audit-test',
      detail: { reason: 'wrong password' },
    });
    expect(has('login', 'success', 'alice')).toBe(true);
    expect(has('logout', 'success', 'alice')).toBe(true);
    expect(has('token.mint', 'success', 'robot')).toBe(true);
    expect(has('apikey.use', 'success', 'robot')).toBe(true);
    expect(JSON.stringify(items)).not.toContain('alice-pw');
    expect(
      (await t.request({ method: 'GET', url: '/cxf/svc-core/audit', headers: { 'x-apikey': KEY } })).statusCode,
    ).toBe(403);
  });
});
