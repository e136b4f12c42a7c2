import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';

const CONFIG = {
  tenants: [
    {
      name: 'acme',
      apiKeys: [
        {
          name: 'integration',
          key: 'k-integration-123456',
          organisations: ['org1'],
          roles: ['NOTIFICATION_ADMIN'],
          rights: ['r1'],
        },
        { name: 'old', key: 'k-expired-123456', roles: ['X'], expiresOn: '2020-01-01T00:00:00Z' },
        { name: 'later', key: 'k-future-123456', expiresOn: '2999-01-01T00:00:00Z' },
      ],
    },
  ],
};

describeEachEngine('API keys', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, CONFIG);
  });
  afterAll(() => t.close());

  const whoami = (headers: Record<string, string>) =>
    t.request({ method: 'GET', url: '/cxf/svc-core/authentication/principal', headers });

  it('acts as the key name with its organisations, roles and rights', async () => {
    const res = await whoami({ 'x-apikey': 'k-integration-123456' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      kind: 'apiKey',
      tenant: 'acme',
      loginName: 'integration',
      organisations: ['org1'],
      roles: ['NOTIFICATION_ADMIN'],
      rights: ['r1'],
    });
    expect((await whoami({ 'x-apikey': 'k-future-123456' })).statusCode).toBe(200);
  });

  it.each([
    ['an unknown key', { 'x-apikey': 'k-unknown' }],
    ['an expired key', { 'x-apikey': 'k-expired-123456' }],
    ['an empty key', { 'x-apikey': '' }],
    ['an over-long key', { 'x-apikey': 'k'.repeat(5000) }],
    ['no credential', {}],
    ['a bearer token nobody issued', { authorization: 'Bearer abc.def.ghi' }],
  ])('refuses %s with 401 and code 540', async (_n, headers) => {
    const res = await whoami(headers as Record<string, string>);
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatchObject({
      code: 540,
      messageKey: 'CORE_ERROR_IDENTITY_PROVIDER_AUTHENTICATION_FAILED',
    });
  });

  it('needs no CSRF token for unsafe methods and is checked against the role guard', async () => {
    const res = await t.request({
      method: 'DELETE',
      url: '/cxf/svc-core/authentication/sessions/all',
      headers: { 'x-apikey': 'k-integration-123456' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.messageKey).toBe('CORE_ERROR_FORBIDDEN');
  });

  it('stores keys hashed, never in plain text', async () => {
    const rows = await t.database.db.selectFrom('api_keys').select(['key_hash']).execute();
    for (const r of rows) expect(r.key_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain('k-integration');
  });
});
