// The SDK's auth modes against the real service: API key, bearer (fixed and fresh per request), HTTP Basic, and the
// session of login() with its CSRF token on writes (and the service refusing the same write without it).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiError, createClient } from '../../sdk/src/index.js';
import { describeEachEngine } from '../helpers/test-app.js';
import {
  ALICE,
  DM_USER,
  type ListeningApp,
  READER_KEY,
  ROBOT_KEY,
  salesItem,
  startListening,
  TENANT,
  uniqueStore,
} from './sdk-kit.js';

describeEachEngine('sdk auth modes', (engine) => {
  let s: ListeningApp;
  beforeAll(async () => {
    s = await startListening(engine);
  });
  afterAll(async () => {
    await s.t.close();
  });

  it('apiKey: sends X-APIKey; the principal is the key', async () => {
    const client = createClient({ baseUrl: s.baseUrl, auth: { apiKey: ROBOT_KEY } });
    const { data, error, response } = await client.GET('/cxf/svc-core/authentication/principal');
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ kind: 'apiKey', tenant: TENANT, loginName: 'robot' });
  });

  it('session: login keeps the cookie and the CSRF token; a write succeeds; logout ends the session', async () => {
    const sent = { cookie: '', csrf: '' };
    const client = createClient({
      baseUrl: s.baseUrl,
      auth: { session: true },
      fetch: (request) => {
        sent.cookie = request.headers.get('cookie') ?? '';
        sent.csrf = request.headers.get('x-csrf-token') ?? '';
        return fetch(request);
      },
    });
    const record = await client.login({ tenant: TENANT, ...ALICE });
    expect(record.loginName).toBe('alice');
    expect(client.csrfToken).toBe(record.principals['X-Csrf-Token'][0]);
    const me = await client.GET('/cxf/svc-core/authentication/principal');
    expect(me.data).toMatchObject({ kind: 'session', loginName: 'alice' });

    const store = uniqueStore('auth');
    const created = await client.POST('/cxf/svc-core/storage/store/{storeId}', {
      params: { path: { storeId: store } },
      body: salesItem({ n: 1 }),
    });
    expect(created.error).toBeUndefined();
    expect(created.response.status).toBe(200);
    expect(typeof created.data?.id).toBe('string');
    expect(sent.csrf).toBe(client.csrfToken);
    expect(sent.cookie).toMatch(/^svc_session=/);

    // The same write without the token, with the same session cookie: the service refuses it and writes nothing.
    const bare = await fetch(`${s.baseUrl}/cxf/svc-core/storage/store/${store}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: sent.cookie },
      body: JSON.stringify(salesItem({ n: 2 })),
    });
    expect(bare.status).toBe(403);
    expect(((await bare.json()) as { error: { messageKey: string } }).error.messageKey).toBe(
      'CORE_ERROR_CSRF_TOKEN_INVALID',
    );
    const list = await client.GET('/cxf/svc-core/storage/store/{storeId}', {
      params: { path: { storeId: store }, query: { start: 0, limit: 10 } },
    });
    expect(list.data?.total).toBe(1);

    await client.logout();
    expect(client.csrfToken).toBeUndefined();
    const after = await client.GET('/cxf/svc-core/authentication/principal');
    expect(after.response.status).toBe(401);
  });

  it('session: restoreSession reads the token of a live session again', async () => {
    const first = createClient({ baseUrl: s.baseUrl, auth: { session: true } });
    await first.login({ tenant: TENANT, ...ALICE });
    const record = await first.restoreSession();
    expect(record.principals['X-Csrf-Token'][0]).toBe(first.csrfToken);
  });

  it('session: a wrong password is a typed ApiError; login and logout need session mode', async () => {
    const client = createClient({ baseUrl: s.baseUrl, auth: { session: true } });
    const failure = await client.login({ tenant: TENANT, username: 'alice', password: 'wrong' }).catch((e) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({
      status: 401,
      code: 540,
      messageKey: 'CORE_ERROR_IDENTITY_PROVIDER_AUTHENTICATION_FAILED',
      name: 'AUTHENTICATION_UNAUTHORIZED',
      message: 'Authentication failed',
      properties: {},
    });
    const keyed = createClient({ baseUrl: s.baseUrl, auth: { apiKey: ROBOT_KEY } });
    await expect(keyed.login({ tenant: TENANT, ...ALICE })).rejects.toThrow(TypeError);
  });

  it('bearer: a fixed token and a function asked before every request', async () => {
    const keyed = createClient({ baseUrl: s.baseUrl, auth: { apiKey: READER_KEY } });
    const minted = await keyed.POST('/cxf/svc-core/authentication/token');
    expect(minted.response.status).toBe(200);
    const token = (minted.data as { access_token: string }).access_token;

    const fixed = createClient({ baseUrl: s.baseUrl, auth: { bearer: token } });
    expect((await fixed.GET('/cxf/svc-core/authentication/principal')).data).toMatchObject({
      kind: 'token',
      loginName: 'reader',
    });

    let asked = 0;
    const fresh = createClient({
      baseUrl: s.baseUrl,
      auth: {
        bearer: async () => {
          asked++;
          return token;
        },
      },
    });
    await fresh.GET('/cxf/svc-core/authentication/principal');
    await fresh.GET('/cxf/svc-core/authentication/principal');
    expect(asked).toBe(2);

    const wrong = createClient({ baseUrl: s.baseUrl, auth: { bearer: 'not-a-token' } });
    expect((await wrong.GET('/cxf/svc-core/authentication/principal')).response.status).toBe(401);
  });

  it('basic: the process engine takes HTTP Basic', async () => {
    const client = createClient({ baseUrl: s.baseUrl, auth: { basic: DM_USER } });
    const { data, response } = await client.GET('/engine/rest/whoami', {
      params: { query: { userType: 'processEngineUser' } },
    });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ name: 'dm', userType: 'processEngineUser' });
  });
});
