import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

describe('OpenAPI document', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('is generated from the route schemas at /docs/json', async () => {
    const res = await t.request({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    const login = doc.paths['/cxf/svc-core/authentication'];
    expect(Object.keys(login).sort()).toEqual(['delete', 'get', 'post']);
    expect(login.post.requestBody.content['application/x-www-form-urlencoded'].schema.required).toEqual([
      'tenantname',
      'username',
      'password',
    ]);
    expect(login.get.responses['200'].content['application/json'].schema.properties.expirationDate.type).toBe(
      'integer',
    );
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-APIKey' });
  });

  it('serves a UI at /docs', async () => {
    const res = await t.request({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });

  it('sends a visitor of / to the console, with no credential, and keeps / out of the document', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await t.request({ method, url: '/' });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/console/');
    }
    expect((await t.request({ method: 'GET', url: '/docs' })).statusCode).toBeLessThan(400);
    const doc = (await t.request({ method: 'GET', url: '/docs/json' })).json();
    expect(doc.paths['/']).toBeUndefined();
  });

  it('answers /health', async () => {
    const res = await t.request({ method: 'GET', url: '/health' });
    expect(res.json()).toEqual({ status: 'ok' });
  });
});
