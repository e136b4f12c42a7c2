// The process engine's REST interface: every row of the credential table, right and wrong, role-matched shared data,
// a user whose roles change on the Process User Server, a server type without tokens, and the engine in a process of
// its own that reaches the platform over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdentityAdmin } from '../../src/modules/identity/index.js';
import { describeEachEngine, login, sessionHeaders, startTestApp, type TestApp } from '../helpers/test-app.js';
import { makeWorkDir, startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';
import { TestIssuer } from '../helpers/oidc-issuer.js';

const REST = '/engine/rest';
const DM = { name: 'dm', password: 'dm-pass-1' };
const CHECK_KEY = 'k-process-user-check-01';
const ENGINE = {
  users: [{ name: DM.name, password: DM.password, groups: ['DataManagement'], roles: ['ops'] }],
  processUserServer: { type: 'platform', tenant: 'default' },
};
const TENANTS = [
  {
    name: 'default',
    users: [
      { loginName: 'alice', password: 'alice-pass-1', roles: ['R1', 'R2'] },
      { loginName: 'bob', password: 'bob-pass-1', roles: ['R3'] },
      { loginName: 'carol', password: 'carol-pass-1' },
    ],
    apiKeys: [{ name: 'engine-check', key: CHECK_KEY, rights: ['PROCESS_USER_CHECK'] }],
  },
  { name: 'other', users: [{ loginName: 'alice', password: 'other-alice-1', roles: ['R1', 'R2', 'R3', 'R9'] }] },
];

const basic = (name: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`,
});
const asEngineUser = basic(DM.name, DM.password);

describeEachEngine('engine REST interface', (engine) => {
  let t: TestApp;
  const call = (method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown) =>
    t.request({
      method,
      url: `${REST}${path}`,
      headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      payload: body ? JSON.stringify(body) : undefined,
    });
  const tokenOf = async (user: string, password: string, tenant = 'default') => {
    const s = await login(t, tenant, user, password);
    return (
      await t.request({ method: 'POST', url: '/cxf/svc-core/authentication/token', headers: sessionHeaders(s) })
    ).json().access_token as string;
  };

  beforeAll(async () => {
    t = await startTestApp(engine, { tenants: TENANTS, engine: ENGINE });
  });
  afterAll(() => t.close());

  describe('the credential table', () => {
    it('process-engine user by Basic', async () => {
      const res = await call('GET', '/whoami?userType=processEngineUser', asEngineUser);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ name: 'dm', userType: 'processEngineUser', roles: ['ops'] });
    });

    it('process user by Basic, checked against the Process User Server (the platform tenant)', async () => {
      const res = await call('GET', '/whoami?userType=processUser', basic('alice', 'alice-pass-1'));
      expect(res.json()).toEqual({ name: 'alice', userType: 'processUser', roles: ['R1', 'R2'] });
    });

    it('process user by X-AUTH-TOKEN: Bearer <platform access token>', async () => {
      const token = await tokenOf('bob', 'bob-pass-1');
      const res = await call('GET', '/whoami?userType=processUser', { 'x-auth-token': `Bearer ${token}` });
      expect(res.json()).toEqual({ name: 'bob', userType: 'processUser', roles: ['R3'] });
    });

    it.each([
      ['no userType', '/whoami', asEngineUser],
      ['an unknown userType', '/whoami?userType=admin', asEngineUser],
      ['an engine user with a wrong password', '/whoami?userType=processEngineUser', basic('dm', 'wrong')],
      ['a process user with a wrong password', '/whoami?userType=processUser', basic('alice', 'wrong')],
      ['a user of another tenant', '/whoami?userType=processUser', basic('alice', 'other-alice-1')],
      ['no credential', '/whoami?userType=processUser', {}],
      ['a malformed Basic header', '/whoami?userType=processUser', { authorization: 'Basic ???' }],
      ['a token without Bearer', '/whoami?userType=processUser', { 'x-auth-token': 'abc.def.ghi' }],
      [
        'a forged token',
        '/whoami?userType=processUser',
        { 'x-auth-token': 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.' },
      ],
      ['an API key', '/whoami?userType=processUser', { 'x-apikey': CHECK_KEY }],
    ])('%s: 401 with the error object', async (_name, path, headers) => {
      const res = await call('GET', path, headers as Record<string, string>);
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toMatchObject({
        messageKey: 'CORE_ERROR_IDENTITY_PROVIDER_AUTHENTICATION_FAILED',
        code: 540,
      });
    });

    it.each([
      ['a process user as process-engine user', '/whoami?userType=processEngineUser', basic('alice', 'alice-pass-1')],
      ['a process-engine user as process user', '/whoami?userType=processUser', asEngineUser],
    ])(
      '%s: 401, as any credential that does not verify where userType says (decisions section 11)',
      async (_name, path, headers) => {
        const res = await call('GET', path, headers);
        expect(res.statusCode).toBe(401);
        expect(res.json().error).toMatchObject({
          messageKey: 'CORE_ERROR_IDENTITY_PROVIDER_AUTHENTICATION_FAILED',
          code: 540,
        });
      },
    );

    it("a token of another tenant's user is refused", async () => {
      const token = await tokenOf('alice', 'other-alice-1', 'other');
      expect(
        (await call('GET', '/whoami?userType=processUser', { 'x-auth-token': `Bearer ${token}` })).statusCode,
      ).toBe(401);
    });
  });

  describe('role-matched shared data', () => {
    const ids: Record<string, string> = {};
    beforeAll(async () => {
      for (const [name, roles] of [
        ['t-r1', ['R1']],
        ['t-r2-r3', ['R2', 'R3']],
        ['t-r9', ['R9']],
      ] as const) {
        const res = await call('POST', '/tasks?userType=processEngineUser', asEngineUser, {
          name,
          roles,
          data: { step: name },
        });
        expect(res.statusCode).toBe(200);
        ids[name] = res.json().id;
      }
      await call('POST', '/reports?userType=processEngineUser', asEngineUser, { name: 'rep-r3', roles: ['R3'] });
    });

    const names = (res: { json(): any }) => res.json().map((i: { name: string }) => i.name);

    it('a created item is answered in the shape of decisions section 10', async () => {
      const res = await call('POST', '/reports?userType=processEngineUser', asEngineUser, {
        name: 'shape',
        roles: ['R7', 'R7'],
        data: { a: 1 },
      });
      const item = res.json();
      expect(Object.keys(item)).toEqual(['id', 'name', 'roles', 'data', 'createdOn']);
      expect(item).toMatchObject({ name: 'shape', roles: ['R7'], data: { a: 1 } });
      expect(new Date(item.createdOn).toISOString()).toBe(item.createdOn);
    });

    it.each([
      ['alice (R1, R2)', basic('alice', 'alice-pass-1'), ['t-r1', 't-r2-r3']],
      ['bob (R3)', basic('bob', 'bob-pass-1'), ['t-r2-r3']],
      ['carol (no roles)', basic('carol', 'carol-pass-1'), []],
    ])('%s gets exactly the tasks sharing a role', async (_name, headers, expected) => {
      const res = await call('GET', '/tasks?userType=processUser', headers);
      expect(res.statusCode).toBe(200);
      expect(names(res)).toEqual(expected);
    });

    it('a process-engine user gets every task; reports are their own list', async () => {
      expect(names(await call('GET', '/tasks?userType=processEngineUser', asEngineUser))).toEqual([
        't-r1',
        't-r2-r3',
        't-r9',
      ]);
      expect(names(await call('GET', '/reports?userType=processUser', basic('alice', 'alice-pass-1')))).toEqual([]);
      expect(names(await call('GET', '/reports?userType=processUser', basic('bob', 'bob-pass-1')))).toEqual(['rep-r3']);
    });

    it('a list read again after a new item shows it at once (kept answers end with the write)', async () => {
      const before = names(await call('GET', '/reports?userType=processUser', basic('alice', 'alice-pass-1')));
      await call('POST', '/reports?userType=processEngineUser', asEngineUser, { name: 'fresh-r1', roles: ['R1'] });
      expect(names(await call('GET', '/reports?userType=processUser', basic('alice', 'alice-pass-1')))).toEqual([
        ...before,
        'fresh-r1',
      ]);
    });

    it('a process user may not create shared data: 403, nothing stored', async () => {
      const res = await call('POST', '/tasks?userType=processUser', basic('alice', 'alice-pass-1'), {
        name: 'sneaky',
        roles: ['R1'],
      });
      expect(res.statusCode).toBe(403);
      expect(names(await call('GET', '/tasks?userType=processEngineUser', asEngineUser))).not.toContain('sneaky');
    });

    it.each([
      ['no name', { roles: ['R1'] }],
      ['no roles', { name: 'x' }],
      ['empty roles', { name: 'x', roles: [] }],
      ['data not an object', { name: 'x', roles: ['R1'], data: [1] }],
      ['an unknown member', { name: 'x', roles: ['R1'], extra: 1 }],
    ])('bad input (%s): 400, nothing stored', async (_name, body) => {
      const before = (await call('GET', '/tasks?userType=processEngineUser', asEngineUser)).json().length;
      expect((await call('POST', '/tasks?userType=processEngineUser', asEngineUser, body)).statusCode).toBe(400);
      expect((await call('GET', '/tasks?userType=processEngineUser', asEngineUser)).json().length).toBe(before);
    });

    it('a user whose roles change on the Process User Server sees the change on the next request', async () => {
      const token = await tokenOf('bob', 'bob-pass-1');
      expect(names(await call('GET', '/tasks?userType=processUser', basic('bob', 'bob-pass-1')))).toEqual(['t-r2-r3']);
      await createIdentityAdmin(t.database.db, t.database.dialect).setUser('default', 'bob', { roles: ['R9'] });
      expect(names(await call('GET', '/tasks?userType=processUser', basic('bob', 'bob-pass-1')))).toEqual(['t-r9']);
      expect(names(await call('GET', '/tasks?userType=processUser', { 'x-auth-token': `Bearer ${token}` }))).toEqual([
        't-r9',
      ]);
    });

    it('a changed password stops working at once, even right after a verified call', async () => {
      expect((await call('GET', '/whoami?userType=processUser', basic('carol', 'carol-pass-1'))).statusCode).toBe(200);
      await createIdentityAdmin(t.database.db, t.database.dialect).setUser('default', 'carol', {
        password: 'carol-pass-2',
      });
      expect((await call('GET', '/whoami?userType=processUser', basic('carol', 'carol-pass-1'))).statusCode).toBe(401);
      expect((await call('GET', '/whoami?userType=processUser', basic('carol', 'carol-pass-2'))).statusCode).toBe(200);
    });
  });

  describe('a Process User Server without tokens (type static)', () => {
    let s: TestApp;
    beforeAll(async () => {
      s = await startTestApp(engine, {
        tenants: TENANTS,
        engine: {
          ...ENGINE,
          processUserServer: { type: 'static', users: [{ name: 'sam', password: 'sam-pass-1', roles: ['R1'] }] },
        },
      });
    });
    afterAll(() => s.close());

    it('checks Basic against its list, and refuses a platform token with 401', async () => {
      const who = await s.request({
        method: 'GET',
        url: `${REST}/whoami?userType=processUser`,
        headers: basic('sam', 'sam-pass-1'),
      });
      expect(who.json()).toEqual({ name: 'sam', userType: 'processUser', roles: ['R1'] });
      const sess = await login(s, 'default', 'alice', 'alice-pass-1');
      const token = (
        await s.request({ method: 'POST', url: '/cxf/svc-core/authentication/token', headers: sessionHeaders(sess) })
      ).json().access_token;
      const res = await s.request({
        method: 'GET',
        url: `${REST}/whoami?userType=processUser`,
        headers: { 'x-auth-token': `Bearer ${token}` },
      });
      expect(res.statusCode).toBe(401);
      expect(
        (
          await s.request({
            method: 'GET',
            url: `${REST}/whoami?userType=processUser`,
            headers: basic('alice', 'alice-pass-1'),
          })
        ).statusCode,
      ).toBe(401);
    });
  });
});

describe('a Process User Server of type oidc', () => {
  let issuer: TestIssuer;
  let t: TestApp;
  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    t = await startTestApp('sqlite', {
      tenants: TENANTS,
      engine: {
        ...ENGINE,
        processUserServer: { type: 'oidc', issuer: issuer.url, audience: 'engine', rolesClaim: 'realm.roles' },
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await issuer.stop();
  });
  const whoami = (headers: Record<string, string>) =>
    t.request({ method: 'GET', url: `${REST}/whoami?userType=processUser`, headers });

  it("takes the provider's tokens with their roles claim, and refuses passwords, foreign tokens and wrong audiences", async () => {
    const token = await issuer.sign({ preferred_username: 'olga', realm: { roles: ['R1'] } }, { audience: 'engine' });
    expect((await whoami({ 'x-auth-token': `Bearer ${token}` })).json()).toEqual({
      name: 'olga',
      userType: 'processUser',
      roles: ['R1'],
    });
    const other = await issuer.sign({ preferred_username: 'olga' }, { audience: 'someone-else' });
    expect((await whoami({ 'x-auth-token': `Bearer ${other}` })).statusCode).toBe(401);
    const expired = await issuer.sign({ preferred_username: 'olga' }, { audience: 'engine', expiresIn: -60 });
    expect((await whoami({ 'x-auth-token': `Bearer ${expired}` })).statusCode).toBe(401);
    const foreign = await issuer.sign(
      { preferred_username: 'olga' },
      { audience: 'engine', issuer: 'https://elsewhere.example' },
    );
    expect((await whoami({ 'x-auth-token': `Bearer ${foreign}` })).statusCode).toBe(401);
    expect((await whoami(basic('alice', 'alice-pass-1'))).statusCode).toBe(401);
  });
});

describe('the engine in a process of its own, with the platform as its Process User Server over HTTP', () => {
  let platform: TestApp;
  let engineProcess: ServiceProcess;
  const work = makeWorkDir();
  beforeAll(async () => {
    platform = await startTestApp('sqlite', { tenants: TENANTS, engine: { enabled: false } });
    await platform.app.listen({ host: '127.0.0.1', port: 0 });
    const platformUrl = `http://127.0.0.1:${(platform.app.server.address() as { port: number }).port}`;
    engineProcess = await startServiceProcess({
      workDir: work.dir,
      config: {
        platform: { enabled: false },
        engine: {
          ...ENGINE,
          processUserServer: { type: 'platform', tenant: 'default', url: platformUrl, apiKey: CHECK_KEY },
        },
      },
    });
  });
  afterAll(async () => {
    await engineProcess?.kill();
    await platform?.close();
    work.cleanup();
  });

  it('checks process users by Basic and by token through the platform, and serves no platform endpoint itself', async () => {
    const who = await fetch(`${engineProcess.url}${REST}/whoami?userType=processUser`, {
      headers: basic('alice', 'alice-pass-1'),
    });
    expect(await who.json()).toEqual({ name: 'alice', userType: 'processUser', roles: ['R1', 'R2'] });
    expect(
      (await fetch(`${engineProcess.url}${REST}/whoami?userType=processUser`, { headers: basic('alice', 'nope') }))
        .status,
    ).toBe(401);
    const s = await login(platform, 'default', 'bob', 'bob-pass-1');
    const token = (
      await platform.request({ method: 'POST', url: '/cxf/svc-core/authentication/token', headers: sessionHeaders(s) })
    ).json().access_token;
    const byToken = await fetch(`${engineProcess.url}${REST}/whoami?userType=processUser`, {
      headers: { 'x-auth-token': `Bearer ${token}` },
    });
    expect(await byToken.json()).toEqual({ name: 'bob', userType: 'processUser', roles: ['R3'] });
    const created = await fetch(`${engineProcess.url}${REST}/tasks?userType=processEngineUser`, {
      method: 'POST',
      headers: { ...asEngineUser, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'apart', roles: ['R3'] }),
    });
    expect(created.status).toBe(200);
    expect(
      (await (
        await fetch(`${engineProcess.url}${REST}/tasks?userType=processUser`, {
          headers: { 'x-auth-token': `Bearer ${token}` },
        })
      ).json()) as unknown[],
    ).toHaveLength(1);
    expect((await fetch(`${engineProcess.url}/cxf/svc-core/authentication/principal`)).status).toBe(404);
    // The platform's own face has no engine.
    expect(
      (
        await platform.request({
          method: 'GET',
          url: `${REST}/whoami?userType=processUser`,
          headers: basic('alice', 'alice-pass-1'),
        })
      ).statusCode,
    ).toBe(404);
  });
});
