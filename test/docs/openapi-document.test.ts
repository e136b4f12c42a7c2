// The OpenAPI document at /docs/json against the routes Fastify serves: every route is in it (or left out for a
// reason, RouteDocument.exclude), every operation describes its answers (a success and the error object for its
// errors) with examples, and the whole is valid OpenAPI 3.1 whose schemas compile. The document does not depend on
// the database engine; the replay of its examples against the service runs on both (openapi-replay.test.ts).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  documentValidator,
  operationsOf,
  parameterExample,
  servedRoutes,
  type DocumentValidator,
  type Operation,
} from './openapi-kit.js';

const ERROR_REF = 'error';

/** Whether a response's JSON schema is the error object (decisions.md section 4). */
function isErrorObject(response: any): boolean {
  const schema = response?.content?.['application/json']?.schema;
  const inner = schema?.properties?.[ERROR_REF];
  return (
    schema?.type === 'object' &&
    inner?.type === 'object' &&
    ['messageKey', 'code', 'name', 'message', 'properties'].every((k) => inner.required?.includes(k))
  );
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: any;
  let ops: Operation[];
  let ajv: DocumentValidator;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const res = await t.request({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
    ops = operationsOf(doc);
    ajv = documentValidator(doc);
  });
  afterAll(() => t.close());

  it('holds every route the service serves, but those left out with a reason', () => {
    const missing: string[] = [];
    const excluded: string[] = [];
    for (const { method, path, route } of servedRoutes(t.routes)) {
      const reason = route.config?.openapi?.exclude;
      if (reason) {
        expect(reason.length, `${method} ${route.url}: the reason it is left out`).toBeGreaterThan(10);
        excluded.push(`${method} ${route.url}`);
        expect(doc.paths[path]?.[method.toLowerCase()], `${method} ${path} is excluded yet documented`).toBeUndefined();
        continue;
      }
      if (!doc.paths[path]?.[method.toLowerCase()]) missing.push(`${method} ${path} (${route.url})`);
    }
    expect(missing, 'routes missing from the document').toEqual([]);
    // What is left out today: the document's UI, the redirect of / and the console's static files.
    expect(excluded.every((r) => / \/(docs|$)/.test(r) || / \/console(\/|$)/.test(r))).toBe(true);
    // And nothing documented that the service does not serve.
    const served = new Set(servedRoutes(t.routes).map((r) => `${r.method} ${r.path}`));
    expect(ops.map((o) => `${o.method} ${o.path}`).filter((o) => !served.has(o))).toEqual([]);
  });

  it('describes every answer: a success, the error object for each error, descriptions and examples', () => {
    const problems: string[] = [];
    for (const { method, path, op } of ops) {
      const where = `${method} ${path}`;
      if (!op.summary) problems.push(`${where}: no summary`);
      if (!op.tags?.length) problems.push(`${where}: no tags`);
      if (!Array.isArray(op.security)) problems.push(`${where}: no security (use [] for none)`);
      const statuses = Object.keys(op.responses ?? {});
      const success = statuses.filter((s) => s.startsWith('2'));
      if (success.length === 0) problems.push(`${where}: no 2xx answer`);
      for (const s of success) {
        const r = op.responses[s];
        const media = Object.values<any>(r.content ?? {});
        if (!media.length || !media[0].schema) problems.push(`${where} ${s}: no schema`);
        if (media[0]?.example === undefined && media[0]?.examples === undefined)
          problems.push(`${where} ${s}: no example`);
      }
      const errors = statuses.filter((s) => /^[45]/.test(s));
      if (!errors.length) problems.push(`${where}: no error answer`);
      for (const s of errors) if (!isErrorObject(op.responses[s])) problems.push(`${where} ${s}: not the error object`);
      for (const [s, r] of Object.entries<any>(op.responses ?? {}))
        if (!r.description || r.description === 'Default Response') problems.push(`${where} ${s}: no description`);
      for (const p of op.parameters ?? [])
        if (p.in === 'path' && parameterExample(p) === undefined) problems.push(`${where}: no example of ${p.name}`);
      const body = Object.values<any>(op.requestBody?.content ?? {})[0];
      if (op.requestBody && body?.example === undefined && body?.examples === undefined)
        problems.push(`${where}: no request example`);
    }
    expect(problems).toEqual([]);
  });

  it('is valid OpenAPI 3.1 (a maintained validator), with path templates that name their parameters', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(validator.version).toBe('3.1');
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    for (const { method, path, op } of ops) {
      const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = (op.parameters ?? [])
        .filter((p: any) => p.in === 'path')
        .map((p: any) => p.name)
        .sort();
      expect(declared, `${method} ${path}`).toEqual(inTemplate);
      for (const name of inTemplate) expect(name, `${method} ${path}`).toMatch(/^[A-Za-z][A-Za-z0-9_]*$/);
    }
  });

  it('has schemas that compile and examples that validate against their own schemas', () => {
    const problems: string[] = [];
    for (const [name, schema] of Object.entries<any>(doc.components.schemas)) {
      for (const example of schema.examples ?? []) {
        const error = ajv.check({ $ref: `#/components/schemas/${name}` }, example);
        if (error) problems.push(`components.schemas.${name} example: ${error}`);
      }
    }
    for (const { method, path, op } of ops) {
      const media = [
        ...Object.entries<any>(op.requestBody?.content ?? {}).map(([type, m]) => ['request', type, m] as const),
        ...Object.entries<any>(op.responses ?? {}).flatMap(([s, r]) =>
          Object.entries<any>(r.content ?? {}).map(([type, m]) => [s, type, m] as const),
        ),
      ];
      for (const [what, type, m] of media) {
        if (!m.schema) continue;
        ajv.compile(m.schema);
        if (m.example !== undefined && type.includes('json')) {
          const error = ajv.check(m.schema, m.example);
          if (error) problems.push(`${method} ${path} ${what} example: ${error}`);
        }
      }
      for (const p of op.parameters ?? []) {
        const example = parameterExample(p);
        if (example !== undefined && typeof example !== 'string') {
          const error = ajv.check(p.schema, example);
          if (error) problems.push(`${method} ${path} parameter ${p.name} example: ${error}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('documents the data management protocol as a union of named calls', () => {
    const schemas = doc.components.schemas;
    const op = doc.paths['/engine/servlet/UploadServlet/api_protocol'].post;
    expect(op.requestBody.content['application/json'].schema.oneOf).toEqual([
      { $ref: '#/components/schemas/DataManagement.Call' },
      { $ref: '#/components/schemas/DataManagement.Batch' },
    ]);
    for (const context of ['Template', 'Asset']) {
      const union = schemas[`DataManagement.${context}.Call`];
      expect(union.discriminator.propertyName).toBe('method');
      for (const [method, ref] of Object.entries<string>(union.discriminator.mapping)) {
        const call = schemas[ref.split('/').pop()!];
        expect(call.properties.context.const).toBe(context);
        expect(call.properties.method.const).toBe(method);
        expect(call.properties.parameters.$ref).toBe(
          `#/components/schemas/DataManagement.${context}.${method}.Parameters`,
        );
        expect(schemas[`DataManagement.${context}.${method}.Answer`]).toBeDefined();
      }
    }
    // A wrong method or parameter of a call does not validate.
    const body = op.requestBody.content['application/json'].schema;
    expect(ajv.check(body, { context: 'Asset', method: 'query', parameters: { verbosity: 1 } })).toBe('');
    expect(ajv.check(body, { context: 'Asset', method: 'qury', parameters: {} })).not.toBe('');
    expect(ajv.check(body, { context: 'Asset', method: 'query', parameters: { verbosty: 1 } })).not.toBe('');
  });

  it('shows the credentials each route takes', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const auth = doc.paths['/cxf/svc-core/authentication'];
    expect(auth.post.security).toEqual([]);
    expect(auth.get.security).toEqual([{ session: [] }]);
    const item = doc.paths['/cxf/svc-core/storage/store/{storeId}/{itemId}'];
    expect(item.get.security).toEqual([{ apiKey: [] }, { bearer: [] }, { session: [] }]);
    expect(item.put.security).toEqual([{ apiKey: [] }, { bearer: [] }, { session: [], csrf: [] }]);
    expect(item.put.requestBody.content['application/json'].schema.required).toEqual([
      'value',
      'readRestriction',
      'writeRestriction',
    ]);
    const stream = doc.paths['/cxf/svc-core/notification/stream'].get.responses['200'];
    expect(Object.keys(stream.content)).toEqual(['text/event-stream']);
    const events = doc.paths['/cxf/svc-core/notification/stream'].get['x-events'];
    expect(events).toEqual({
      notification: { $ref: '#/components/schemas/Notifications.Event.notification' },
      reset: { $ref: '#/components/schemas/Notifications.Event.reset' },
    });
    const flow = doc.paths['/cxf/svc-flow/flow/{instance}/{path}'];
    expect(Object.keys(flow.post.requestBody.content)).toEqual(['*/*']);
    expect(flow.get.responses['2XX'].content['*/*'].schema.format).toBe('binary');
  });

  it('is what npm run openapi writes without a server (scripts/openapi.mjs, from dist/)', {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-openapi-test-'));
    try {
      const file = join(dir, 'openapi.json');
      await promisify(execFile)(process.execPath, [join(import.meta.dirname, '../../scripts/openapi.mjs'), file]);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(doc);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
