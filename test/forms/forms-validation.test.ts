import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { FORMS_CONFIG, addVersion, call, formBody, historyVersions } from './forms-fixtures.js';

/** A component nested `levels` deep through `components` (level 1 is a top-level component). */
function nested(levels: number): any {
  let c: any = { type: 'textfield', label: 'leaf' };
  for (let i = 1; i < levels; i++) c = { type: 'panel', components: [c] };
  return c;
}

const withComponents = (components: unknown) => ({ name: 'F', config: { components } });

const BAD_BODIES: Array<[string, unknown, string]> = [
  ['missing name', { config: { components: [] } }, 'body.name'],
  ['name not a string', { name: 5, config: { components: [] } }, 'body.name'],
  ['missing config', { name: 'F' }, 'body.config'],
  ['config not an object', { name: 'F', config: [] }, 'body.config'],
  ['missing components', { name: 'F', config: { configuration: {} } }, 'body.config.components'],
  ['components an object', withComponents({ type: 'textfield' }), 'body.config.components'],
  ['components a string', withComponents('textfield'), 'body.config.components'],
  ['a component without type', withComponents([{ label: 'x' }]), 'body.config.components[0].type'],
  ['a component with a numeric type', withComponents([{ type: 5 }]), 'body.config.components[0].type'],
  ['a component with an empty type', withComponents([{ type: '' }]), 'body.config.components[0].type'],
  ['a component with a non-string label', withComponents([{ type: 'x', label: 7 }]), 'body.config.components[0].label'],
  ['a component that is not an object', withComponents(['textfield']), 'body.config.components[0]'],
  [
    'a nested component without type',
    withComponents([{ type: 'panel', components: [{ label: 'x' }] }]),
    'body.config.components[0].components[0].type',
  ],
  [
    'nested components not an array',
    withComponents([{ type: 'panel', components: { type: 'x' } }]),
    'body.config.components[0].components',
  ],
  [
    'a component in a column without type',
    withComponents([
      { type: 'columns', columns: [{ components: [] }, { components: [{ type: 'x' }, { label: 'y' }] }] },
    ]),
    'body.config.components[0].columns[1].components[1].type',
  ],
  [
    'a component in a table cell with a numeric type',
    withComponents([{ type: 'table', rows: [[{ components: [] }], [{}, { components: [{ type: 1 }] }]] }]),
    'body.config.components[0].rows[1][1].components[0].type',
  ],
  ['metaData not an object', { name: 'F', config: { metaData: 'x', components: [] } }, 'body.config.metaData'],
  ['configuration null', { name: 'F', config: { configuration: null, components: [] } }, 'body.config.configuration'],
  [
    'components nested beyond 32 levels',
    withComponents([nested(33)]),
    'body.config.components[0]' + '.components[0]'.repeat(31) + '.components',
  ],
  [
    'more than 10,000 components',
    withComponents(Array.from({ length: 10_001 }, () => ({ type: 'x' }))),
    'body.config.components[10000]',
  ],
  [
    'JSON nested beyond 128 levels',
    withComponents([{ type: 'x', data: JSON.parse('['.repeat(130) + ']'.repeat(130)) }]),
    'body',
  ],
];

describeEachEngine('Forms API input validation', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, FORMS_CONFIG);
  });
  afterAll(() => t.close());

  it.each(BAD_BODIES)('refuses %s with 400 and stores nothing', async (_name, body, path) => {
    for (const [method, url] of [
      ['POST', '/forms/bad'],
      ['PUT', '/forms/bad/1'],
    ] as const) {
      const res = await call(t, method, url, { body });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toMatchObject({ code: 400, messageKey: 'CORE_ERROR_VALIDATION_FAILED' });
      expect(res.json().error.properties.errors[0].path).toBe(path);
    }
    expect(await historyVersions(t, 'bad')).toBe(404);
  });

  it('accepts nesting at the limits and keeps every unknown property, deep ones included', async () => {
    const components = [
      nested(32),
      { type: 'table', rows: [[{ components: [nested(31)] }]], custom: { a: [1, { b: null }] } },
      { type: 'textarea', rows: 3, columns: 'free text' },
    ];
    const form = await addVersion(t, 'at-limits', withComponents(components));
    expect(form.config.components).toEqual(components);
    expect(
      (await addVersion(t, 'many', withComponents(Array.from({ length: 10_000 }, () => ({ type: 'x' }))))).version,
    ).toBe(1);
  });

  it.each([
    ['malformed JSON', '{"name": "F", "config": {', 400, 'CORE_ERROR_INVALID_JSON'],
    ['an empty body', '', 400, 'CORE_ERROR_INVALID_JSON'],
    ['a JSON array', '[]', 400, 'CORE_ERROR_VALIDATION_FAILED'],
    ['a prototype-poisoning key', '{"name":"F","config":{"components":[]},"__proto__":{"x":1}}', 400, undefined],
  ])('refuses %s', async (_name, payload, status, messageKey) => {
    const res = await call(t, 'POST', '/forms/bad-json', {
      body: payload,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode, res.body).toBe(status);
    if (messageKey) expect(res.json().error.messageKey).toBe(messageKey);
    expect(res.json().error.code).toBe(status);
    expect(await historyVersions(t, 'bad-json')).toBe(404);
  });

  it('refuses a body over the body limit with 413, an unknown media type with 415, plain text with 400', async () => {
    const big = formBody('Big', [{ type: 'x', blob: 'x'.repeat(1_100_000) }]);
    expect((await call(t, 'POST', '/forms/big', { body: big })).statusCode).toBe(413);
    const xml = await call(t, 'POST', '/forms/big', {
      body: '<form/>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(xml.statusCode).toBe(415);
    const text = await call(t, 'POST', '/forms/big', { body: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(text.statusCode).toBe(400);
    expect(await historyVersions(t, 'big')).toBe(404);
  });

  it.each([
    ['a space', 'bad%20id'],
    ['a non-ASCII letter', 'caf%C3%A9'],
    ['a comma', 'a,b'],
    ['a slash', 'a%2Fb'],
    ['a colon', 'a:b'],
  ])('refuses a form id with %s on every endpoint', async (_name, id) => {
    const calls = [
      ['POST', `/forms/${id}`, formBody()],
      ['PUT', `/forms/${id}/1`, formBody()],
      ['GET', `/forms/${id}`],
      ['GET', `/forms/${id}/1`],
      ['GET', `/config/${id}`],
      ['GET', `/config/${id}/1`],
      ['GET', `/history/${id}`],
      ['DELETE', `/forms/${id}/1`],
      ['DELETE', `/forms/${id}`],
    ] as const;
    for (const [method, url, body] of calls) {
      const res = await call(t, method, url, { body });
      expect(res.statusCode, `${method} ${url}`).toBe(400);
      expect(res.json().error.properties.errors[0].path).toBe('params.formId');
    }
  });

  it('refuses the id "." where it reaches the route (URL normalisation removes it elsewhere)', async () => {
    for (const method of ['POST', 'GET', 'DELETE'] as const) {
      const res = await call(t, method, '/forms/%2E', { body: method === 'POST' ? formBody() : undefined });
      expect(res.statusCode, method).toBe(400);
    }
  });

  it('refuses a form id of more than 100 characters', async () => {
    // The router answers 414 before the route sees the id (Fastify's maxParamLength is 100).
    const res = await call(t, 'POST', `/forms/${'a'.repeat(101)}`, { body: formBody() });
    expect([400, 414]).toContain(res.statusCode);
    expect(await historyVersions(t, 'a'.repeat(100))).toBe(404);
  });

  it('accepts ids of 1 to 100 letters, digits, dots, dashes and underscores', async () => {
    for (const id of ['a', 'A.b_c-9', 'x'.repeat(100), '...']) {
      const form = await addVersion(t, id);
      expect(form.id).toBe(id);
      expect((await call(t, 'GET', `/forms/${id}`)).json().config.metaData.id).toBe(id);
    }
  });
});
