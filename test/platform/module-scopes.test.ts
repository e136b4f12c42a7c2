import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_PASSWORD, describeEachEngine, login, startTestApp, type TestApp } from '../helpers/test-app.js';

const basic = (name: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`,
});
const ENGINE = { users: [{ name: 'dm', password: 'dm-pass-1', groups: ['DataManagement'], roles: ['ops'] }] };

/** One route of each platform module, none of them public. */
const PLATFORM_ROUTES = [
  ['identity', 'GET', '/cxf/svc-core/audit'],
  ['storage', 'GET', '/cxf/svc-core/storage/store/s1'],
  ['forms', 'GET', '/cxf/svc-forms/forms'],
  ['notifications', 'GET', '/cxf/svc-core/notification'],
  ['flow', 'GET', '/cxf/svc-flow/flow/nowhere/x'],
] as const;

describeEachEngine('modules in scopes of their own (src/module-list.ts, app.ts)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { engine: ENGINE });
  });
  afterAll(() => t.close());

  it("keeps each module's request decorators and body parsers inside its scope", async () => {
    await t.app.ready();
    // The platform's principal, the engine's callers and flow's catch-all parser belong to their modules' scopes.
    for (const name of ['principal', 'restCaller', 'dmCaller'])
      expect(t.app.hasRequestDecorator(name), name).toBe(false);
    expect(t.app.hasContentTypeParser('*')).toBe(false);
    // So a body flow would stream on is refused by a module that parses bodies (415), before any credential is asked.
    const s = await login(t, 'default', 'admin', ADMIN_PASSWORD);
    const res = await t.request({
      method: 'POST',
      url: '/cxf/svc-forms/forms/f1',
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, 'content-type': 'application/octet-stream' },
      payload: Buffer.from('not json'),
    });
    expect(res.statusCode).toBe(415);
  });

  it.each(PLATFORM_ROUTES)(
    '%s: a route of a platform module needs a credential (401 without one)',
    async (_module, method, url) => {
      const res = await t.request({ method, url });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toMatchObject({ messageKey: 'CORE_ERROR_IDENTITY_PROVIDER_AUTHENTICATION_FAILED' });
    },
  );

  it('a public route of a platform module answers without one', async () => {
    expect((await t.request({ method: 'GET', url: '/cxf/svc-core/.well-known/jwks.json' })).statusCode).toBe(200);
  });

  it("the engine's faces check their callers by the engine's users, outside the platform's credential scope", async () => {
    const whoami = await t.request({
      method: 'GET',
      url: '/engine/rest/whoami?userType=processEngineUser',
      headers: basic('dm', 'dm-pass-1'),
    });
    expect(whoami.statusCode).toBe(200);
    expect(whoami.json()).toEqual({ name: 'dm', userType: 'processEngineUser', roles: ['ops'] });
    const dm = await t.request({
      method: 'POST',
      url: '/engine/servlet/UploadServlet/api_protocol',
      headers: { ...basic('dm', 'dm-pass-1'), 'content-type': 'application/json' },
      payload: JSON.stringify({
        context: 'Template',
        method: 'create',
        parameters: { template: { customId: 'scoped', name: 'Scoped', attributes: [] } },
      }),
    });
    expect(dm.statusCode, dm.body).toBe(200);
    expect(dm.json()).toEqual({});
  });
});
