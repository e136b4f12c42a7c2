// Hostile and malformed input: each answers the error object (never SQL or a stack) and changes no data.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { apiKeyCaller, client, expectErrorObject, item, OWNER_KEY, STORAGE_CONFIG, STORE } from './storage-kit.js';

/** A JSON text nested `depth` levels, built without recursion (JSON.stringify would overflow at 100,000). */
const deepJson = (depth: number) => '['.repeat(depth) + '1' + ']'.repeat(depth);
const deepBody = (depth: number) =>
  `{"value":${deepJson(depth)},"readRestriction":{"roles":["OWNER"]},"writeRestriction":{"roles":["OWNER"]}}`;

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? { k: v } : [v];
  return v;
};

describeEachEngine('storage bad input', (engine) => {
  let t: TestApp;
  let owner: ReturnType<typeof client>;
  let snapshot: () => Promise<string>;
  let before = '';

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
    for (let i = 0; i < 3; i++) await owner.put('safe', `item-${i}`, item({ i }));
    snapshot = async () => {
      const items = await t.database.db
        .selectFrom('storage_items')
        .select(['item_id', 'store_id', 'doc', 'updated_on'])
        .orderBy('seq')
        .execute();
      const access = await t.database.db
        .selectFrom('storage_item_access')
        .select(['item_seq', 'mode', 'grantee'])
        .orderBy('item_seq')
        .orderBy('grantee')
        .execute();
      const stores = await t.database.db
        .selectFrom('storage_stores')
        .select(['store_id'])
        .orderBy('store_id')
        .execute();
      return JSON.stringify({ items, access, stores });
    };
  });
  beforeEach(async () => {
    before = await snapshot();
  });
  afterAll(() => t.close());

  const unchanged = async () => expect(await snapshot()).toBe(before);

  it('answers 413 with the error object for a 10 MB item', async () => {
    const big = JSON.stringify(item('x'.repeat(10 * 1024 * 1024)));
    for (const [method, url] of [
      ['POST', `${STORE}/safe`],
      ['PUT', `${STORE}/safe/item-0`],
      ['POST', `${STORE}/safe/item-0`],
    ] as const) {
      const res = await owner.send(method, url, big);
      expect(expectErrorObject(res, 413).messageKey).toBe('CORE_ERROR_PAYLOAD_TOO_LARGE');
    }
    await unchanged();
  });

  it('accepts an item of 4 MB (the body limit is 5 MiB, above the global default)', async () => {
    const res = await owner.put('large', 'four-mb', item('y'.repeat(4 * 1024 * 1024)));
    expect(res.statusCode).toBe(200);
    expect((await owner.read('large', 'four-mb')).json().value).toHaveLength(4 * 1024 * 1024);
    await owner.remove('large', 'four-mb');
  });

  it('accepts value nested 64 levels and refuses 65 and 100000 with 400', async () => {
    const ok = await owner.put('deep', 'ok', item(nested(64)));
    expect(ok.statusCode).toBe(200);
    expect((await owner.read('deep', 'ok')).json().value).toEqual(nested(64));
    await owner.remove('deep', 'ok');
    before = await snapshot();
    for (const depth of [65, 100_000, 1_000_000]) {
      const e = expectErrorObject(await owner.send('PUT', `${STORE}/deep/no`, deepBody(depth)), 400);
      // Beyond the service's limit for every body (128 levels, platform/http/input-integrity.ts) that check answers first.
      expect(e.messageKey).toBe(depth < 128 ? 'STORAGE_ERROR_NESTING_TOO_DEEP' : 'CORE_ERROR_VALIDATION_FAILED');
      expectErrorObject(await owner.send('POST', `${STORE}/deep`, deepBody(depth)), 400);
    }
    expectErrorObject(await owner.put('deep', 'no', item(nested(65))), 400);
    expectErrorObject(await owner.create('deep', item(1, { extra: nested(100) })), 400);
    expectErrorObject(await owner.create('deep', item(1, { customFields: { a: nested(100) } })), 400);
    await unchanged();
  });

  it.each([
    ['with a slash (encoded)', `${STORE}/a%2Fb`],
    ['`..` (encoded)', `${STORE}/%2E%2E`],
    ['with a quote', `${STORE}/a'b`],
    ['with SQL', `${STORE}/${encodeURIComponent("x' OR '1'='1")}`],
    ['with a NUL byte', `${STORE}/a%00b`],
    ['with a space', `${STORE}/a%20b`],
    ['with non-ASCII', `${STORE}/${encodeURIComponent('störe')}`],
    ['with a percent sign', `${STORE}/a%25b`],
  ])('refuses a store id %s on every operation without a change', async (_n, url) => {
    for (const [method, u, body] of [
      ['GET', url, undefined],
      ['POST', url, item(1)],
      ['GET', `${url}/item-0`, undefined],
      ['PUT', `${url}/item-0`, item(1)],
      ['POST', `${url}/item-0`, item(1)],
      ['DELETE', `${url}/item-0`, undefined],
    ] as const) {
      const res = await owner.send(method, u, body);
      expect([400, 404]).toContain(res.statusCode);
      expectErrorObject(res, res.statusCode);
    }
    await unchanged();
  });

  it.each([
    ['`..`', '..'],
    ['encoded slash', 'a%2Fb'],
    ['SQL', encodeURIComponent("item-0' OR 1=1 --")],
    ['quote', "item-0'"],
    ['a star', 'item-*'],
  ])('refuses an item id with %s without a change', async (_n, id) => {
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', item(1)],
      ['POST', item(1)],
      ['DELETE', undefined],
    ] as const) {
      const res = await owner.send(method, `${STORE}/safe/${id}`, body);
      expect([400, 404]).toContain(res.statusCode);
      expectErrorObject(res, res.statusCode);
    }
    await unchanged();
  });

  it('a path with a raw slash cannot match a route: 404 with the error object', async () => {
    expectErrorObject(await owner.send('GET', `${STORE}/safe/item-0/extra`), 404);
    expectErrorObject(await owner.send('DELETE', `${STORE}/safe/item-0/extra`), 404);
    await unchanged();
  });

  it('stores SQL-looking values literally and reads them back unchanged', async () => {
    const evil = "'); DROP TABLE storage_items; --";
    const body = {
      value: { evil, [evil]: evil },
      name: evil,
      moduleId: '" OR ""="',
      readRestriction: { user: "owner' OR '1'='1" },
      writeRestriction: { roles: ['OWNER', "x') OR 1=1 --"] },
      [evil]: 1,
    };
    const res = await owner.put('evil', 'e1', body);
    expect(res.statusCode).toBe(200);
    // The user restriction names a user no one is: even the writer cannot read it.
    expect((await owner.read('evil', 'e1')).statusCode).toBe(403);
    const del = (await owner.remove('evil', 'e1')).json();
    expect(del).toMatchObject({ value: body.value, name: evil, moduleId: body.moduleId, customFields: { [evil]: 1 } });
    expect(del.readRestriction).toEqual({ user: "owner' OR '1'='1" });
    expect((await owner.list('safe')).json().total).toBe(3);
  });

  it.each([
    ['start', '0; DROP TABLE storage_items'],
    ['limit', '1 OR 1=1'],
    ['start', '1e400'],
    ['limit', '1e400x'],
    ['start', '99999999999999999999'],
  ])('refuses %s=%s with 400', async (param, value) => {
    expectErrorObject(await owner.list('safe', { [param]: value }), 400);
    await unchanged();
  });

  it('answers a body that is not JSON with the error object and no change', async () => {
    for (const [type, status] of [
      ['application/xml', 415],
      ['text/plain', 400],
    ] as const) {
      const res = await t.request({
        method: 'POST',
        url: `${STORE}/safe`,
        headers: { 'x-apikey': OWNER_KEY, 'content-type': type },
        payload: JSON.stringify(item(1)),
      });
      expectErrorObject(res, status);
    }
    await unchanged();
  });

  it('answers a JSON body with a prototype-poisoning key with the error object', async () => {
    const res = await owner.send(
      'POST',
      `${STORE}/safe`,
      '{"value":1,"__proto__":{"x":1},"readRestriction":{"roles":["OWNER"]},"writeRestriction":{"roles":["OWNER"]}}',
    );
    expect([400, 500]).toContain(res.statusCode);
    expectErrorObject(res, res.statusCode);
    await unchanged();
  });
});

// Over a real socket, because inject() parses the URL and would resolve dot segments before the router.
describeEachEngine('storage ids over raw HTTP', (engine) => {
  let t: TestApp;
  let port = 0;
  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
    await client(t, apiKeyCaller('owner', OWNER_KEY)).put('safe', 'item-0', item(0));
  });
  afterAll(() => t.close());

  const raw = (method: string, path: string, body?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          headers: { 'x-apikey': OWNER_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          let data = '';
          res.on('data', (c) => (data += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  it.each([
    ['.', '/.'],
    ['..', '/..'],
    ['%2e%2e', '/%2e%2e'],
    ['.. before an item', '/../item-0'],
    ['. as item', '/safe/.'],
    ['.. as item', '/safe/..'],
    ['1,000 characters', `/${'s'.repeat(1000)}`],
    ['1,000-character item', `/safe/${'i'.repeat(1000)}`],
  ])('refuses %s without a crash or a change', async (_n, suffix) => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
      const res = await raw(
        method,
        `${STORE}${suffix}`,
        method === 'POST' || method === 'PUT' ? JSON.stringify(item(1)) : undefined,
      );
      // 414: Fastify refuses a path parameter over maxParamLength (100) before routing.
      expect([400, 404, 414]).toContain(res.status);
      expect(res.body).not.toMatch(/select |insert |sqlite|postgres|node_modules|\bat \w/i);
      if (res.status !== 414) expect(Object.keys(JSON.parse(res.body))).toEqual(['error']);
    }
    const list = await raw('GET', `${STORE}/safe`);
    expect(JSON.parse(list.body).total).toBe(1);
    const count = await t.database.db
      .selectFrom('storage_items')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    expect(Number(count?.n)).toBe(1);
  });
});
