// The data management API's protocol endpoint and context Template: credentials and groups, the call envelope and
// batches (all or nothing), every Template method built so far, and bad input.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { PNG } from 'pngjs';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';

/** A real PNG of the given size, as base64. */
function png(width: number, height: number): string {
  const image = new PNG({ width, height });
  for (let i = 0; i < image.data.length; i++) image.data[i] = (i * 7) & 0xff;
  return PNG.sync.write(image).toString('base64');
}

const URL_ = '/engine/servlet/UploadServlet/api_protocol';
const basic = (name: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`,
});
const DM = basic('dm', 'dm-pass-1');
const ENGINE = {
  users: [
    { name: 'dm', password: 'dm-pass-1', groups: ['DataManagement'] },
    { name: 'ops', password: 'ops-pass-1', groups: ['Operations'] },
  ],
};
const template = (customId: string, extra: Record<string, unknown> = {}) => ({
  customId,
  name: `Template ${customId}`,
  attributes: [
    { key: 'dm:serial', type: 'string', required: true, label: 'Serial' },
    { key: 'dm:secret', type: 'string', hidden: true },
    { key: 'dm:state', type: 'enum', values: ['new', 'used'] },
  ],
  ...extra,
});

describeEachEngine('data management API: protocol and context Template', (engine) => {
  let t: TestApp;
  const call = (body: unknown, headers: Record<string, string> = DM) =>
    t.request({
      method: 'POST',
      url: URL_,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const tpl = (method: string, parameters: unknown) => call({ context: 'Template', method, parameters });

  beforeAll(async () => {
    t = await startTestApp(engine, { engine: ENGINE });
  });
  afterAll(() => t.close());

  it('engine users of group DataManagement only: 401 without or with wrong credentials, 403 for other users', async () => {
    const body = { context: 'Template', method: 'query', parameters: {} };
    expect((await call(body, {})).statusCode).toBe(401);
    expect((await call(body, basic('dm', 'wrong'))).statusCode).toBe(401);
    const other = await call(body, basic('ops', 'ops-pass-1'));
    expect(other.statusCode).toBe(403);
    expect(Object.keys(other.json())).toEqual(['error']);
    expect((await call(body)).statusCode).toBe(200);
  });

  it('creates, gets (with and without hidden attributes), updates, queries and deletes a template', async () => {
    const created = await tpl('create', { template: template('pump'), strict: true, return: true });
    expect(created.statusCode).toBe(200);
    const t1 = created.json().template;
    expect(Number.isInteger(t1.id)).toBe(true);
    expect(t1).toMatchObject({
      customId: 'pump',
      name: 'Template pump',
      restricted: false,
      roles: [],
      childTemplates: [],
    });
    expect(t1.attributes[0]).toMatchObject({ key: 'dm:serial', required: true, versioned: true, hidden: false });
    expect((await tpl('create', { template: template('quiet') })).json()).toEqual({});

    expect((await tpl('get', { id: t1.id })).json().template).toEqual(t1);
    const shown = (await tpl('get', { customId: 'pump', withoutHiddenAttributes: true })).json().template;
    expect(shown.attributes.map((a: { key: string }) => a.key)).toEqual(['dm:serial', 'dm:state']);

    const updated = await tpl('update', {
      template: { ...template('pump'), id: t1.id, name: 'Pump v2', attributes: [] },
      return: true,
    });
    expect(updated.json().template).toMatchObject({ id: t1.id, name: 'Pump v2', attributes: [] });

    const q = (
      await tpl('query', {
        filters: [{ property: 'customId', operator: 'like', value: 'p*' }],
        sorters: [{ property: 'name', direction: 'DESC' }],
      })
    ).json();
    expect(q.total).toBe(1);
    expect(q.templates[0].id).toBe(t1.id);
    expect(
      (await tpl('query', { start: 0, limit: 1, sorters: [{ property: 'customId', direction: 'ASC' }] })).json(),
    ).toMatchObject({ total: 2, templates: [{ customId: 'pump' }] });

    expect((await tpl('delete', { customId: 'pump' })).json()).toEqual({});
    expect((await tpl('get', { id: t1.id })).statusCode).toBe(404);
    expect((await tpl('get', { id: t1.id, optional: true })).json()).toEqual({});
    expect((await tpl('delete', { id: t1.id })).statusCode).toBe(404);
  });

  it('a customId that exists is 409; an update naming a missing template is 404', async () => {
    await tpl('create', { template: template('unique-1') });
    const again = await tpl('create', { template: template('unique-1') });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.messageKey).toBe('DM_ERROR_CUSTOM_ID_TAKEN');
    expect((await tpl('update', { template: { ...template('x'), id: 999_999 } })).statusCode).toBe(404);
  });

  it('a batch runs in one transaction: one failing call rolls every call back', async () => {
    const ok = await call({
      requests: [
        { context: 'Template', method: 'create', parameters: { template: template('b-1') } },
        { context: 'Template', method: 'get', parameters: { customId: 'b-1' } },
      ],
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().responses[1].template.customId).toBe('b-1');
    const failing = await call({
      requests: [
        { context: 'Template', method: 'create', parameters: { template: template('b-2') } },
        { context: 'Template', method: 'create', parameters: { template: template('b-1') } },
      ],
    });
    expect(failing.statusCode).toBe(409);
    expect(failing.json().error.properties.request).toBe(1);
    expect((await tpl('get', { customId: 'b-2', optional: true })).json()).toEqual({});
  });

  it.each([
    ['an unknown context', { context: 'Gadget', method: 'get', parameters: {} }, 'Gadget'],
    ['an unknown method', { context: 'Template', method: 'explode', parameters: {} }, 'explode'],
    ['a call without method', { context: 'Template' }, 'method'],
    ['parameters of the wrong type', { context: 'Template', method: 'get', parameters: { id: 'seven' } }, 'id'],
    ['neither id nor customId', { context: 'Template', method: 'get', parameters: {} }, 'customId'],
    [
      'colliding attribute keys',
      {
        context: 'Template',
        method: 'create',
        parameters: {
          template: template('c', {
            attributes: [
              { key: 'a', type: 'string' },
              { key: 'a', type: 'integer' },
            ],
          }),
        },
      },
      'collides',
    ],
    [
      'a non-QName key with strict',
      {
        context: 'Template',
        method: 'create',
        parameters: { strict: true, template: template('c', { attributes: [{ key: '1 bad key', type: 'string' }] }) },
      },
      'QName',
    ],
    [
      'an unknown attribute type',
      {
        context: 'Template',
        method: 'create',
        parameters: { template: template('c', { attributes: [{ key: 'a', type: 'blob' }] }) },
      },
      'type',
    ],
    [
      'an enum without values',
      {
        context: 'Template',
        method: 'create',
        parameters: { template: template('c', { attributes: [{ key: 'a', type: 'enum' }] }) },
      },
      'values',
    ],
    [
      'a customId of 10,000 characters',
      { context: 'Template', method: 'create', parameters: { template: template('x'.repeat(10_000)) } },
      'customId',
    ],
    [
      'an unknown filter property',
      {
        context: 'Template',
        method: 'query',
        parameters: { filters: [{ property: 'colour', operator: 'eq', value: 'red' }] },
      },
      'colour',
    ],
    [
      'an unknown operator',
      {
        context: 'Template',
        method: 'query',
        parameters: { filters: [{ property: 'name', operator: 'near', value: 'x' }] },
      },
      'near',
    ],
  ])('%s: 400 naming it, nothing written', async (_name, body, mentioned) => {
    const before = (await tpl('query', {})).json().total;
    const res = await call(body);
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json().error)).toContain(mentioned);
    expect((await tpl('query', {})).json().total).toBe(before);
  });

  it('without strict, a key that is not a QName is accepted (deprecated)', async () => {
    const res = await tpl('create', {
      template: template('lenient', { attributes: [{ key: 'not a qname', type: 'string' }] }),
      return: true,
    });
    expect(res.json().template.attributes[0].key).toBe('not a qname');
  });

  it('sets and gets a 64 x 64 PNG image; refuses anything else with 400 and keeps the image it had', async () => {
    await tpl('create', { template: template('pictured') });
    const good = png(64, 64);
    expect((await tpl('getImage', { customId: 'pictured' })).statusCode).toBe(404);
    expect((await tpl('setImage', { customId: 'pictured', image: good })).json()).toEqual({});
    expect((await tpl('getImage', { customId: 'pictured' })).json()).toEqual({ image: good });
    const truncated = Buffer.from(good, 'base64').subarray(0, 60).toString('base64');
    // A valid header claiming 64 x 64 in front of garbage: only decoding the whole image tells.
    const headerOnly = Buffer.concat([
      Buffer.from(good, 'base64').subarray(0, 33),
      Buffer.from('garbage-garbage-garbage'),
    ]).toString('base64');
    for (const [what, image] of [
      ['65 x 64', png(65, 64)],
      ['64 x 63', png(64, 63)],
      ['truncated', truncated],
      ['a valid header before garbage', headerOnly],
      ['not a PNG', Buffer.from('GIF89a not a png at all').toString('base64')],
      ['not base64', '***'],
    ]) {
      const res = await tpl('setImage', { customId: 'pictured', image });
      expect(res.statusCode, what).toBe(400);
    }
    expect((await tpl('getImage', { customId: 'pictured' })).json()).toEqual({ image: good });
    expect((await tpl('setImage', { customId: 'nobody', image: good })).statusCode).toBe(404);
    await tpl('delete', { customId: 'pictured' });
    await tpl('create', { template: template('pictured') });
    expect((await tpl('getImage', { customId: 'pictured' })).statusCode).toBe(404);
  });
});

describeEachEngine('data management API: template query (the storage query language, platform/query)', (engine) => {
  let t: TestApp;
  const tpl = (method: string, parameters: unknown) =>
    t.request({
      method: 'POST',
      url: URL_,
      headers: { ...DM, 'content-type': 'application/json' },
      payload: JSON.stringify({ context: 'Template', method, parameters }),
    });
  const ids = async (parameters: Record<string, unknown>) => {
    const res = await tpl('query', { sorters: [{ property: 'customId' }], ...parameters });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().templates as Array<{ customId: string }>).map((x) => x.customId);
  };

  beforeAll(async () => {
    t = await startTestApp(engine, { engine: ENGINE });
    const rows = [
      { customId: 'alpha', name: 'Pump', description: 'Moves water', restricted: true, roles: ['ops', 'admin'] },
      { customId: 'beta', name: 'pump small', description: 'Moves oil', roles: ['ops'] },
      { customId: 'gamma', name: 'Valve', description: '' },
      { customId: 'delta', name: 'Äbox', description: 'Holds parts', roles: ['admin'] },
      { customId: 'epsilon', name: 'Zeta 10' },
      { customId: 'zeta', name: 'Zeta 9', restricted: true },
    ];
    const res = await t.request({
      method: 'POST',
      url: URL_,
      headers: { ...DM, 'content-type': 'application/json' },
      payload: JSON.stringify({
        requests: rows.map((r) => ({
          context: 'Template',
          method: 'create',
          parameters: { template: { attributes: [], ...r } },
        })),
      }),
    });
    expect(res.statusCode).toBe(200);
  });
  afterAll(() => t.close());

  it.each([
    ['eq on name (case-sensitive)', [{ property: 'name', operator: 'eq', value: 'Pump' }], ['alpha']],
    [
      'like is case-insensitive with * and ?',
      [{ property: 'name', operator: 'like', value: 'pump*' }],
      ['alpha', 'beta'],
    ],
    ['like with ?', [{ property: 'customId', operator: 'like', value: '?eta' }], ['beta', 'zeta']],
    ['ne', [{ property: 'customId', operator: '!=', value: 'alpha' }], ['beta', 'delta', 'epsilon', 'gamma', 'zeta']],
    ['in', [{ property: 'customId', operator: 'in', value: ['gamma', 'zeta', 'nobody'] }], ['gamma', 'zeta']],
    [
      'invert',
      [{ property: 'customId', operator: 'in', value: ['gamma', 'zeta'], invert: true }],
      ['alpha', 'beta', 'delta', 'epsilon'],
    ],
    [
      'a document field (description)',
      [{ property: 'description', operator: 'like', value: 'moves*' }],
      ['alpha', 'beta'],
    ],
    ['a boolean', [{ property: 'restricted', operator: 'eq', value: true }], ['alpha', 'zeta']],
    ['matches in arrays (roles)', [{ property: 'roles', operator: 'eq', value: 'admin' }], ['alpha', 'delta']],
    [
      'range on id',
      [{ property: 'id', operator: 'gte', value: 0 }],
      ['alpha', 'beta', 'delta', 'epsilon', 'gamma', 'zeta'],
    ],
    ['range on a string', [{ property: 'customId', operator: 'lt', value: 'delta' }], ['alpha', 'beta']],
    [
      'several conditions are ANDed',
      [
        { property: 'name', operator: 'like', value: 'pump*' },
        { property: 'roles', operator: 'eq', value: 'admin' },
      ],
      ['alpha'],
    ],
  ])('%s', async (_name, filters, expected) => {
    expect(await ids({ filters })).toEqual(expected);
  });

  it('sorts by a column or a document field, descending, and pages with start/limit and an exact total', async () => {
    expect(await ids({ sorters: [{ property: 'name', direction: 'DESC' }] })).toEqual([
      'delta',
      'beta',
      'zeta',
      'epsilon',
      'gamma',
      'alpha',
    ]);
    expect(await ids({ sorters: [{ property: 'description' }, { property: 'customId' }], limit: 5 })).toEqual([
      'epsilon',
      'gamma',
      'zeta',
      'delta',
      'beta',
    ]);
    const page = (
      await tpl('query', { sorters: [{ property: 'customId', direction: 'DESC' }], start: 2, limit: 2 })
    ).json();
    expect(page.total).toBe(6);
    expect(page.templates.map((x: { customId: string }) => x.customId)).toEqual(['epsilon', 'delta']);
    expect((await tpl('query', { limit: 0 })).json()).toEqual({ total: 6, templates: [] });
  });

  it.each([
    ['a range on a boolean', [{ property: 'restricted', operator: 'gt', value: true }]],
    ['like on a number', [{ property: 'name', operator: 'like', value: 5 }]],
    ['in without an array', [{ property: 'customId', operator: 'in', value: 'alpha' }]],
    ['an unknown source', [{ property: 'name', operator: 'eq', value: 'x', source: 'cooked' }]],
  ])('%s: 400 of the data management API', async (_name, filters) => {
    const res = await tpl('query', { filters });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.messageKey).toBe('DM_ERROR_INVALID_CALL');
  });
});

describeEachEngine('data management API: template actions', (engine) => {
  let t: TestApp;
  let hooks: Server;
  const received: unknown[] = [];
  const call = (body: unknown) =>
    t.request({
      method: 'POST',
      url: URL_,
      headers: { ...DM, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const tpl = (method: string, parameters: unknown) => call({ context: 'Template', method, parameters });
  const action = (key: string, extra: Record<string, unknown> = {}) => ({
    template: { customId: 'acting' },
    action: { key },
    ...extra,
  });

  beforeAll(async () => {
    hooks = createServer(async (req, res) => {
      let body = '';
      for await (const c of req) body += c;
      received.push(JSON.parse(body));
      if (req.url === '/slow') return void setTimeout(() => res.end('{}'), 2000);
      if (req.url === '/garbage') return void res.end('this is not json');
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          message: 'done',
          refresh: true,
          custom: { seen: JSON.parse(body).parameters },
          download: { fileName: 'a.txt', mediaType: 'text/plain', data: 'aGk=' },
        }),
      );
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(hooks.address() as { port: number }).port}`;
    t = await startTestApp(engine, {
      engine: {
        ...ENGINE,
        actionWebhooks: [
          { name: 'ok', url: `${base}/ok` },
          { name: 'slow', url: `${base}/slow`, timeoutSeconds: 0.3 },
          { name: 'garbage', url: `${base}/garbage` },
        ],
      },
    });
    const parameters = [
      { key: 'count', type: 'integer', required: true },
      { key: 'mode', type: 'enum', values: ['fast', 'careful'], default: 'careful' },
    ];
    const created = await tpl('create', {
      template: template('acting', {
        actions: [
          { key: 'run', scope: 'template', parameters, handler: { type: 'webhook', webhook: 'ok' } },
          { key: 'crawl', scope: 'template', handler: { type: 'webhook', webhook: 'slow' } },
          { key: 'mumble', scope: 'template', handler: { type: 'webhook', webhook: 'garbage' } },
          { key: 'nowhere', scope: 'template', handler: { type: 'webhook', webhook: 'not-configured' } },
          { key: 'perAsset', scope: 'asset', handler: { type: 'webhook', webhook: 'ok' } },
        ],
      }),
    });
    expect(created.statusCode).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await new Promise((r) => hooks.close(r));
  });

  it('getActionAttributes answers the action parameter definitions', async () => {
    const res = await tpl('getActionAttributes', action('run'));
    expect(res.json().attributes.map((a: { key: string }) => a.key)).toEqual(['count', 'mode']);
  });

  it('executeAction checks the parameters, calls the webhook and answers what it said', async () => {
    const res = await tpl(
      'executeAction',
      action('run', { Parameters: [{ key: 'count', value: 3 }], custom: { from: 'ui' } }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      message: 'done',
      refresh: true,
      custom: { seen: { count: 3, mode: 'careful' } },
      download: { fileName: 'a.txt', mediaType: 'text/plain', data: 'aGk=' },
    });
    expect(received.at(-1)).toMatchObject({
      context: 'Template',
      template: { customId: 'acting' },
      action: 'run',
      parameters: { count: 3, mode: 'careful' },
      custom: { from: 'ui' },
    });
  });

  it.each([
    ['a required parameter missing', action('run', { Parameters: [] }), 'count'],
    ['a parameter of the wrong type', action('run', { Parameters: [{ key: 'count', value: 'three' }] }), 'integer'],
    [
      'a value outside the enum',
      action('run', {
        Parameters: [
          { key: 'count', value: 1 },
          { key: 'mode', value: 'reckless' },
        ],
      }),
      'mode',
    ],
    [
      'an unknown parameter',
      action('run', {
        Parameters: [
          { key: 'count', value: 1 },
          { key: 'colour', value: 'red' },
        ],
      }),
      'colour',
    ],
    ['an unknown action', action('fly'), 'fly'],
    ['an asset-scoped action', action('perAsset'), 'assets'],
    ['a webhook that is not configured', action('nowhere'), 'webhook'],
  ])('%s: 400, the webhook is not called', async (_name, parameters, mentioned) => {
    const before = received.length;
    const res = await tpl('executeAction', parameters);
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json().error)).toContain(mentioned);
    expect(received.length).toBe(before);
  });

  it('a webhook that times out or answers garbage is a 502 with the error object', async () => {
    const slow = await tpl('executeAction', action('crawl'));
    expect(slow.statusCode).toBe(502);
    expect(slow.json().error).toMatchObject({ messageKey: 'DM_ERROR_ACTION_FAILED' });
    expect(slow.json().error.message).toContain('0.3 s');
    const garbage = await tpl('executeAction', action('mumble'));
    expect(garbage.statusCode).toBe(502);
    expect(garbage.json().error.message).toContain('not JSON');
  });

  it('executeAction runs alone, not in a batch', async () => {
    const res = await call({
      requests: [
        {
          context: 'Template',
          method: 'executeAction',
          parameters: action('run', { Parameters: [{ key: 'count', value: 1 }] }),
        },
      ],
    });
    expect(res.statusCode).toBe(400);
  });
});
