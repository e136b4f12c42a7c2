// Request bodies are taken as typed (decisions.md section 4; issue 40, finding 12): a value of the wrong JSON type is
// 400, never converted, while query strings stay text that is read as numbers.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';

const N = '/cxf/svc-core/notification';
const KEY = 'k-typed-notifier-0001';

describeEachEngine('typed bodies', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, {
      tenants: [{ name: 'acme', apiKeys: [{ name: 'notifier', key: KEY, roles: ['NOTIFICATION_ADMIN'] }] }],
    });
  });
  afterAll(() => t.close());

  const add = (body: unknown) =>
    t.request({
      method: 'POST',
      url: N,
      headers: { 'x-apikey': KEY, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const count = async () =>
    (await t.request({ method: 'GET', url: `${N}?limit=1`, headers: { 'x-apikey': KEY } })).json().total as number;

  it.each([
    ['a string where the schema says array', { recipients: 'bob' }, 'body.recipients'],
    ['a numeric string where the schema says number', { priority: '5' }, 'body.priority'],
    ['a number where the schema says string', { subject: 42 }, 'body.subject'],
    ['a boolean where the schema says string', { originator: true }, 'body.originator'],
  ])('refuses %s with 400 naming the field, and stores nothing', async (_what, change, path) => {
    const before = await count();
    const res = await add({ subject: 'typed', recipients: ['bob'], recipientsType: 'user', ...change });
    expect(res.statusCode, res.body).toBe(400);
    const error = res.json().error;
    expect(error.messageKey).toBe('CORE_ERROR_VALIDATION_FAILED');
    expect(error.properties.errors[0].path).toBe(path);
    expect(await count()).toBe(before);
  });

  it('still reads query-string numbers from their text', async () => {
    expect((await add({ subject: 'one', recipients: ['bob'], recipientsType: 'user', priority: 10 })).statusCode).toBe(
      200,
    );
    const res = await t.request({ method: 'GET', url: `${N}?limit=1&start=0`, headers: { 'x-apikey': KEY } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items).toHaveLength(1);
  });
});
