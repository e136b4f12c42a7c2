import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import { startTracing, type Tracing } from '../../src/platform/tracing/index.js';
import { ADMIN_PASSWORD, describeEachEngine, openTestDatabase, type TestApp } from '../helpers/test-app.js';
import { apiKeyCaller, client, item, OWNER_KEY, STORAGE_CONFIG } from '../storage/storage-kit.js';

/**
 * Modules of OpenTelemetry's SDK, exporter and instrumentation (@fastify/otel) that the process has loaded through the
 * CommonJS loader. Its API package alone is left out: prom-client (metrics) requires it when it is installed, for
 * exemplars; without a registered provider it is a no-op.
 */
const loadedOtelModules = () =>
  Object.keys(createRequire(import.meta.url).cache).filter(
    (file) =>
      /[\\/]@(opentelemetry|fastify[\\/]otel)[\\/]/.test(file) && !/[\\/]@opentelemetry[\\/]api[\\/]/.test(file),
  );

const configOf = (raw: Record<string, any>) =>
  parseConfig({ ...raw, server: { logLevel: 'silent' }, identity: { bootstrapAdminPassword: ADMIN_PASSWORD } });

// First in the file: the tests below load OpenTelemetry into this process on purpose.
describe('tracing off (no tracing.otlpEndpoint)', () => {
  it('loads nothing of OpenTelemetry and registers no @fastify/otel plugin', async () => {
    const database = await openTestDatabase('sqlite');
    const built = await buildApp(configOf(STORAGE_CONFIG), { database, logger: false });
    try {
      const owner = client(
        { ...built, engine: 'sqlite', request: (o) => built.app.inject(o) },
        apiKeyCaller('owner', OWNER_KEY),
      );
      const { id } = (await owner.create('notes', item({ n: 1 }))).json();
      expect((await owner.read('notes', id)).statusCode).toBe(200);
      expect(built.app.printPlugins()).not.toContain('@fastify/otel');
      expect(loadedOtelModules()).toEqual([]);
    } finally {
      await built.close();
      await database.destroy();
    }
  });
});

// OpenTelemetry's SpanKind (imported lazily like everything of it here: the first test checks that none is loaded).
const SERVER = 1;
const CLIENT = 2;

/** Whether `ancestor` is `span`'s parent, its parent's parent... among `spans`. */
function descendsFrom(span: ReadableSpan, ancestor: ReadableSpan, spans: readonly ReadableSpan[]): boolean {
  let parentId = span.parentSpanContext?.spanId;
  for (let hops = 0; parentId && hops < 50; hops++) {
    if (parentId === ancestor.spanContext().spanId) return true;
    parentId = spans.find((s) => s.spanContext().spanId === parentId)?.parentSpanContext?.spanId;
  }
  return false;
}

describeEachEngine('tracing with an in-memory exporter', (engine) => {
  let exporter: InMemorySpanExporter;
  let tracing: Tracing;
  let t: TestApp;
  let owner: ReturnType<typeof client>;
  let closeDatabase: () => Promise<void>;
  beforeAll(async () => {
    const config = configOf(STORAGE_CONFIG);
    exporter = new (await import('@opentelemetry/sdk-trace-base')).InMemorySpanExporter();
    tracing = await startTracing(config.tracing, { exporter });
    const database = await openTestDatabase(engine, { spans: tracing.spans });
    closeDatabase = () => database.destroy();
    const built = await buildApp(config, { database, logger: false, tracing });
    t = { ...built, engine, request: (o) => built.app.inject(o) };
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
  });
  afterAll(async () => {
    await t?.close();
    await closeDatabase?.();
    await tracing?.shutdown();
  });

  it('an item read is a server span named by its route, with database spans under it', async () => {
    const { id } = (await owner.create('notes', item({ n: 1 }))).json();
    exporter.reset();
    expect((await owner.read('notes', id)).statusCode).toBe(200);

    const spans = exporter.getFinishedSpans();
    const servers = spans.filter((s) => s.kind === SERVER);
    expect(servers).toHaveLength(1);
    const server = servers[0]!;
    expect(server.name).toBe('GET /cxf/svc-core/storage/store/:storeId/:itemId');
    expect(server.name).not.toContain(id);
    expect(server.attributes['http.route']).toBe('/cxf/svc-core/storage/store/:storeId/:itemId');
    expect(server.attributes['http.response.status_code']).toBe(200);
    expect(server.resource.attributes['service.name']).toBe('svc-platform');

    const statements = spans.filter((s) => s.attributes['db.system.name'] !== undefined);
    expect(statements.length).toBeGreaterThan(0);
    for (const s of statements) {
      expect(s.attributes['db.system.name']).toBe(engine === 'postgres' ? 'postgresql' : 'sqlite');
      expect(s.kind).toBe(CLIENT);
      expect(s.spanContext().traceId).toBe(server.spanContext().traceId);
      expect(descendsFrom(s, server, spans)).toBe(true);
      // The statement's kind names the span; its parameters (the id) appear nowhere.
      expect(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'WITH', 'BEGIN', 'COMMIT', 'ROLLBACK', 'SQL']).toContain(s.name);
      expect(JSON.stringify(s.attributes)).not.toContain(id);
    }
    expect(statements.some((s) => s.name === 'SELECT')).toBe(true);
  });

  it('continues the trace of a caller that sends traceparent', async () => {
    const { id } = (await owner.create('notes', item({ n: 2 }))).json();
    exporter.reset();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await t.request({
      method: 'GET',
      url: `/cxf/svc-core/storage/store/notes/${id}`,
      headers: { 'x-apikey': OWNER_KEY, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(res.statusCode).toBe(200);
    const server = exporter.getFinishedSpans().find((s) => s.kind === SERVER);
    expect(server?.spanContext().traceId).toBe(traceId);
    expect(server?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
  });

  it('with tracing on, @fastify/otel is loaded (the check of the test above sees it)', () => {
    expect(loadedOtelModules().length).toBeGreaterThan(0);
  });
});
