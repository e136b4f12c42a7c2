// Defects found from outside (issue 15): what a JSON body may carry, empty bodies, and logout's CSRF rule.
// Each case is what a client sees, on both engines, and a refused request must leave nothing behind.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, login, sessionHeaders, startTestApp, type TestApp } from '../helpers/test-app.js';

const STORE = '/cxf/svc-core/storage/store';
const KEY = { 'x-apikey': 'k-integrity-0123456789' };
const JSON_TYPE = { 'content-type': 'application/json' };
const RESTRICTIONS = '"readRestriction":{"roles":["ADMIN"]},"writeRestriction":{"roles":["ADMIN"]}';

describeEachEngine('input integrity', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, {
      tenants: [
        {
          name: 'acme',
          users: [{ loginName: 'ann', password: 'ann-secret-1', roles: ['FORMS_ADMIN'] }],
          apiKeys: [
            { name: 'robot', key: KEY['x-apikey'], roles: ['FORMS_ADMIN', 'ADMIN'] },
            { name: 'notifier', key: 'k-integrity-notifier-01', roles: ['NOTIFICATION_ADMIN'] },
          ],
        },
      ],
    });
  });
  afterAll(() => t.close());

  const storeCount = async (store: string) => {
    const res = await t.request({ method: 'GET', url: `${STORE}/${store}?limit=1`, headers: KEY });
    return res.statusCode === 200 ? res.json().total : -1;
  };
  /** Storage bodies are written as raw JSON text; the restrictions every item needs are put in front. */
  const postRaw = (url: string, text: string) =>
    t.request({
      method: 'POST',
      url,
      headers: { ...KEY, ...JSON_TYPE },
      payload: text.replace(/^\{/, `{${RESTRICTIONS},`),
    });

  const expectError = (res: { statusCode: number; json(): any }, status: number, messageKey: string) => {
    expect(res.statusCode).toBe(status);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error.messageKey).toBe(messageKey);
    expect(body.error.code).toBe(status);
    return body.error;
  };

  // Raw JSON text: the escapes are JSON's, so the parsed strings hold NUL or a lone surrogate.
  const unstorable: Array<[string, string, string]> = [
    ['NUL in a value', '{"name":"x","value":{"text":"a\\u0000b"}}', 'body.value.text'],
    ['NUL in a key', '{"name":"x","value":{"k\\u0000":1}}', 'body.value'],
    ['a lone high surrogate', '{"name":"x","value":"\\ud800"}', 'body.value'],
    ['a lone low surrogate in an array', '{"name":"x","value":["ok","x\\udc00y"]}', 'body.value[1]'],
    ['a reversed pair', '{"name":"x","value":"\\udc00\\ud800"}', 'body.value'],
  ];
  for (const [what, text, path] of unstorable) {
    it(`storage refuses ${what} with 400 naming the field, and stores nothing`, async () => {
      const before = await storeCount('integrity');
      const error = expectError(await postRaw(`${STORE}/integrity`, text), 400, 'CORE_ERROR_VALIDATION_FAILED');
      expect(error.properties.errors[0].path).toBe(path);
      expect(await storeCount('integrity')).toBe(before);
    });
  }

  it('storage keeps a valid surrogate pair and other control characters exactly', async () => {
    const value = { emoji: '\ud83d\ude00', tab: 'a\tb\u0001c', text: 'caf\u00e9' };
    const res = await postRaw(`${STORE}/integrity`, JSON.stringify({ name: 'pair', value }));
    expect(res.statusCode).toBe(200);
    const read = await t.request({ method: 'GET', url: `${STORE}/integrity/${res.json().id}`, headers: KEY });
    expect(read.json().value).toEqual(value);
  });

  it('forms refuse NUL and lone surrogates too, and keep no version', async () => {
    const bad = '{"name":"form","config":{"components":[{"type":"textfield","label":"a\\u0000b"}]}}';
    const res = await t.request({
      method: 'POST',
      url: '/cxf/svc-forms/forms/f-integrity',
      headers: { ...KEY, ...JSON_TYPE },
      payload: bad,
    });
    const error = expectError(res, 400, 'CORE_ERROR_VALIDATION_FAILED');
    expect(error.properties.errors[0].path).toBe('body.config.components[0].label');
    const read = await t.request({ method: 'GET', url: '/cxf/svc-forms/forms/f-integrity', headers: KEY });
    expect(read.statusCode).toBe(404);
  });

  const outOfRange: Array<[string, string]> = [
    ['beyond double range', '{"name":"x","value":{"a":1e309}}'],
    ['negative beyond double range', '{"name":"x","value":{"a":-1.5e400}}'],
    ['below the smallest double', '{"name":"x","value":{"d":1e-400}}'],
    ['below the smallest double, written long', `{"name":"x","value":{"d":0.${'0'.repeat(400)}1}}`],
  ];
  for (const [what, text] of outOfRange) {
    it(`storage refuses a number ${what} with 400 instead of changing it`, async () => {
      const before = await storeCount('integrity');
      const error = expectError(await postRaw(`${STORE}/integrity`, text), 400, 'CORE_ERROR_VALIDATION_FAILED');
      expect(error.message).toMatch(/number/i);
      expect(await storeCount('integrity')).toBe(before);
    });
  }

  it('forms refuse an out-of-range number too', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/cxf/svc-forms/forms/f-range',
      headers: { ...KEY, ...JSON_TYPE },
      payload: '{"name":"r","config":{"components":[],"configuration":{"max":1e999}}}',
    });
    expectError(res, 400, 'CORE_ERROR_VALIDATION_FAILED');
  });

  it('keeps numbers a double carries: zero (-0 reads as 0), subnormals, large and negative exponents', async () => {
    const text =
      '{"name":"n","value":{"z":0,"nz":-0.0,"e":0e-500,"sub":5e-324,"small":1e-300,"big":1.7976931348623157e308,"int":9007199254740991}}';
    const res = await postRaw(`${STORE}/integrity`, text);
    expect(res.statusCode).toBe(200);
    const read = await t.request({ method: 'GET', url: `${STORE}/integrity/${res.json().id}`, headers: KEY });
    expect(read.json().value).toEqual({
      z: 0,
      nz: 0,
      e: 0,
      sub: 5e-324,
      small: 1e-300,
      big: 1.7976931348623157e308,
      int: 9007199254740991,
    });
  });

  it.each([
    ['a path parameter', '/cxf/svc-core/notification/a%00b', 'params.notificationId'],
    ['a query parameter', '/cxf/svc-core/notification?start=0&x=a%00b', 'querystring.x'],
  ])('refuses NUL in %s with 400 naming it, on a route whose schema would let it through', async (_what, url, path) => {
    const res = await t.request({ method: 'GET', url, headers: { 'x-apikey': 'k-integrity-notifier-01' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.properties.errors[0].path).toBe(path);
  });

  it('an empty body with a JSON content type on a DELETE is no body', async () => {
    const created = await postRaw(`${STORE}/integrity`, '{"name":"gone","value":1}');
    const id = created.json().id;
    const res = await t.request({
      method: 'DELETE',
      url: `${STORE}/integrity/${id}`,
      headers: { ...KEY, ...JSON_TYPE },
    });
    expect(res.statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: `${STORE}/integrity/${id}`, headers: KEY })).statusCode).toBe(404);
  });

  it('an empty body with a JSON content type on a GET is no body', async () => {
    const res = await t.request({
      method: 'GET',
      url: `${STORE}/integrity?limit=1`,
      headers: { ...KEY, ...JSON_TYPE },
    });
    expect(res.statusCode).toBe(200);
  });

  it('an empty body where a body is required is still an error object', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/cxf/svc-forms/forms/f-empty',
      headers: { ...KEY, ...JSON_TYPE },
      payload: '',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.messageKey).toMatch(/^CORE_ERROR_/);
  });

  it('logout without the CSRF token is 403 and the session lives on; with it, 200', async () => {
    const s = await login(t, 'acme', 'ann', 'ann-secret-1');
    const check = () =>
      t.request({ method: 'GET', url: '/cxf/svc-core/authentication', headers: { cookie: s.cookie } });
    expectError(
      await t.request({ method: 'DELETE', url: '/cxf/svc-core/authentication', headers: { cookie: s.cookie } }),
      403,
      'CORE_ERROR_CSRF_TOKEN_INVALID',
    );
    expectError(
      await t.request({
        method: 'DELETE',
        url: '/cxf/svc-core/authentication',
        headers: { cookie: s.cookie, 'x-csrf-token': 'wrong' },
      }),
      403,
      'CORE_ERROR_CSRF_TOKEN_INVALID',
    );
    expect((await check()).statusCode).toBe(200);
    const out = await t.request({ method: 'DELETE', url: '/cxf/svc-core/authentication', headers: sessionHeaders(s) });
    expect(out.statusCode).toBe(200);
    expect((await check()).statusCode).toBe(401);
    // Without a live session there is no token to show: logging out again stays idempotent.
    expect(
      (await t.request({ method: 'DELETE', url: '/cxf/svc-core/authentication', headers: { cookie: s.cookie } }))
        .statusCode,
    ).toBe(200);
    expect((await t.request({ method: 'DELETE', url: '/cxf/svc-core/authentication' })).statusCode).toBe(200);
  });
});
