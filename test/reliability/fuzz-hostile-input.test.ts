// Hostile input found from outside (issue 40, findings 9 and 11): NUL in form-encoded login fields, query strings and
// Basic credentials; JSON nested deeper than the service's one limit (128 levels, the body's root counted), on a sample
// of the JSON endpoints (storage keeps its own 64 for an item's value, test/storage/bad-input.test.ts). Each
// answers 400 with the error object on both engines (never 500, never a stack overflow), and the process stays healthy.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';

const KEY = 'k-fuzz-hostile-0001';
const DM = { name: 'dm', password: 'dm-pass-1' };
const DM_URL = '/engine/servlet/UploadServlet/api_protocol';
const STORE = '/cxf/svc-core/storage/store';
const CONFIG = {
  tenants: [
    {
      name: 'acme',
      users: [{ loginName: 'alice', password: 'alice-pass-1' }],
      apiKeys: [{ name: 'fuzzer', key: KEY, roles: ['ADMIN', 'FORMS_ADMIN', 'NOTIFICATION_ADMIN'] }],
    },
  ],
  engine: { users: [{ ...DM, groups: ['DataManagement'] }] },
};
const basic = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;

/** JSON text of arrays and objects nested `levels` deep, built without recursion (JSON.stringify would overflow). */
const deepJson = (levels: number) => {
  let open = '';
  let close = '';
  for (let i = 0; i < levels; i++) {
    open += i % 2 ? '{"k":' : '[';
    close = (i % 2 ? '}' : ']') + close;
  }
  return `${open}1${close}`;
};

/**
 * Bodies with a stored JSON value at `@`, whose container lies at level `depth` (the body's root is level 1): a value
 * of n levels there makes the body `depth + n` levels deep.
 */
const ENDPOINTS: Array<{
  name: string;
  method: 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body: string;
  depth: number;
}> = [
  {
    name: 'storage create (value)',
    method: 'POST',
    url: `${STORE}/fuzz`,
    headers: { 'x-apikey': KEY },
    body: '{"value":@,"readRestriction":{"roles":["ADMIN"]},"writeRestriction":{"roles":["ADMIN"]}}',
    depth: 1,
  },
  {
    name: 'notification add (typeSpecificData)',
    method: 'POST',
    url: '/cxf/svc-core/notification',
    headers: { 'x-apikey': KEY },
    body: '{"subject":"deep","recipients":["alice"],"recipientsType":"user","typeSpecificData":{"x":@}}',
    depth: 2,
  },
  {
    name: 'forms add (a component)',
    method: 'POST',
    url: '/cxf/svc-forms/forms/f-fuzz',
    headers: { 'x-apikey': KEY },
    body: '{"name":"fuzz","config":{"components":[{"type":"textfield","key":"a","label":"A","properties":@}]}}',
    depth: 4,
  },
  {
    name: 'data management Asset.create (a json attribute)',
    method: 'POST',
    url: DM_URL,
    headers: { authorization: basic(DM.name, DM.password) },
    body: '{"context":"Asset","method":"create","parameters":{"asset":{"template":{"customId":"fuzz"},"attributes":{"dm:blob":@}}}}',
    depth: 4,
  },
];

describeEachEngine('hostile input', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, CONFIG);
    const template = { customId: 'fuzz', name: 'Fuzz', attributes: [{ key: 'dm:blob', type: 'json' }] };
    const res = await t.request({
      method: 'POST',
      url: DM_URL,
      headers: { authorization: basic(DM.name, DM.password), 'content-type': 'application/json' },
      payload: JSON.stringify({ context: 'Template', method: 'create', parameters: { template } }),
    });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(() => t.close());
  afterEach(async () => {
    expect((await t.request({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });

  const expect400 = (res: { statusCode: number; body: string }) => {
    expect(res.statusCode, res.body.slice(0, 500)).toBe(400);
    const body = JSON.parse(res.body);
    expect(Object.keys(body)).toEqual(['error']);
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'messageKey', 'name', 'properties']);
    expect(body.error.code).toBe(400);
    return body.error;
  };

  const login = (fields: Record<string, string>) =>
    t.request({
      method: 'POST',
      url: '/cxf/svc-core/authentication',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: Object.entries(fields)
        .map(([k, v]) => `${k}=${v}`)
        .join('&'),
    });

  it.each(['tenantname', 'username', 'password'])(
    'answers NUL in the form-encoded login field %s with 400',
    async (field) => {
      const fields: Record<string, string> = {
        tenantname: 'acme',
        username: 'alice',
        password: 'alice-pass-1',
        [field]: 'a%00b',
      };
      const error = expect400(await login(fields));
      expect(error.messageKey).toBe('CORE_ERROR_VALIDATION_FAILED');
      expect(error.properties.errors[0].path).toBe(`body.${field}`);
    },
  );

  it('never answers 500 for bytes that are not UTF-8 in a login field, and still logs in', async () => {
    for (const raw of ['%ED%A0%80', '%FF', '%C0%80']) {
      const res = await login({ tenantname: 'acme', username: `alice${raw}`, password: 'alice-pass-1' });
      expect([400, 401]).toContain(res.statusCode);
    }
    expect((await login({ tenantname: 'acme', username: 'alice', password: 'alice-pass-1' })).statusCode).toBe(200);
  });

  it.each([
    ['a storage list query', `${STORE}/fuzz?query=${encodeURIComponent('value.a:x\u0000y')}`, 'querystring.query'],
    // As JSON text the NUL is an escape: the filter's own parser refuses it.
    [
      'a storage list filter (JSON escape)',
      `${STORE}/fuzz?filter=${encodeURIComponent(JSON.stringify([{ property: 'value.a', operator: 'eq', value: 'a\u0000b' }]))}`,
      'filter/0/value',
    ],
    [
      'a storage list filter (the character itself)',
      `${STORE}/fuzz?filter=${encodeURIComponent('[{"property":"value.a","operator":"eq","value":"a\u0000b"}]')}`,
      'querystring.filter',
    ],
    ['a storage list sort', `${STORE}/fuzz?sort=${encodeURIComponent('value.a\u0000|ASC')}`, 'querystring.sort'],
    ['a store name in the path', `${STORE}/a%00b`, 'params.storeId'],
    ['a form id in the path', '/cxf/svc-forms/forms/f%00x', 'params.formId'],
  ])('answers NUL in %s with 400', async (_what, url, path) => {
    const error = expect400(await t.request({ method: 'GET', url, headers: { 'x-apikey': KEY } }));
    expect(error.properties.errors[0].path).toBe(path);
  });

  it.each([
    ['the engine REST interface', 'GET', '/engine/rest/tasks?userType=processEngineUser'],
    ['the data management endpoint', 'POST', DM_URL],
  ] as const)('answers NUL in Basic credentials on %s with 400', async (_what, method, url) => {
    for (const [name, password] of [
      ['a\u0000b', 'x'],
      [DM.name, 'dm\u0000pass'],
    ]) {
      const res = await t.request({
        method,
        url,
        headers: { authorization: basic(name, password), 'content-type': 'application/json' },
        payload: method === 'POST' ? '{}' : undefined,
      });
      expect(expect400(res).properties.errors[0].path).toBe('headers.authorization');
    }
  });

  for (const endpoint of ENDPOINTS) {
    it(`answers JSON nested 129, 5,000 and 100,000 levels deep on ${endpoint.name} with 400`, async () => {
      for (const levels of [129, 5_000, 100_000]) {
        const payload = endpoint.body.replace('@', deepJson(levels - endpoint.depth));
        const res = await t.request({
          method: endpoint.method,
          url: endpoint.url,
          headers: { ...endpoint.headers, 'content-type': 'application/json' },
          payload,
        });
        const error = expect400(res);
        expect(error.messageKey).toBe('CORE_ERROR_VALIDATION_FAILED');
        expect(error.message).toBe('body: JSON may be nested at most 128 levels deep');
      }
    });
  }

  it('takes JSON nested exactly 128 levels deep', async () => {
    const notification = ENDPOINTS[1];
    const payload = notification.body.replace('@', deepJson(128 - notification.depth));
    const res = await t.request({
      method: 'POST',
      url: notification.url,
      headers: { ...notification.headers, 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const dm = ENDPOINTS[3];
    const created = await t.request({
      method: 'POST',
      url: dm.url,
      headers: { ...dm.headers, 'content-type': 'application/json' },
      payload: dm.body.replace('@', deepJson(128 - dm.depth)),
    });
    expect(created.statusCode, created.body.slice(0, 300)).toBe(200);
  });
});
