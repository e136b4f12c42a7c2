// The real process with OTEL_EXPORTER_OTLP_ENDPOINT: its spans reach an OTLP/HTTP receiver (a tiny one in the test).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, inject, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';
import { createProcessDatabase, makeWorkDir, startServiceProcess } from '../helpers/service-process.js';

interface ExportedSpan {
  name: string;
  kind: number;
  traceId: string;
  attributes: { key: string; value: { stringValue?: string } }[];
}

/** A receiver of OTLP/HTTP JSON exports: what arrived at /v1/traces, as resource attributes and spans. */
async function startReceiver() {
  const exports: { paths: string[]; services: string[]; spans: ExportedSpan[] } = {
    paths: [],
    services: [],
    spans: [],
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      exports.paths.push(req.url ?? '');
      const data = JSON.parse(body);
      for (const rs of data.resourceSpans ?? []) {
        for (const a of rs.resource?.attributes ?? [])
          if (a.key === 'service.name') exports.services.push(a.value.stringValue);
        for (const ss of rs.scopeSpans ?? []) exports.spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, exports, close: () => new Promise((r) => server.close(r)) };
}

const attribute = (span: ExportedSpan, key: string) => span.attributes.find((a) => a.key === key)?.value.stringValue;

describeEachEngine('tracing: the real process exports over OTLP/HTTP', (engine) => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('sends the server span of a request and its database spans to <endpoint>/v1/traces', async () => {
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const work = makeWorkDir();
    cleanups.push(work.cleanup);
    const env: Record<string, string> = { OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`, OTEL_SERVICE_NAME: 'svc-x' };
    if (engine === 'postgres') {
      const database = await createProcessDatabase(inject('pgUrl'));
      cleanups.push(database.drop);
      env.DATABASE_URL = database.url;
    }
    const service = await startServiceProcess({ config: {}, workDir: work.dir, env });
    cleanups.push(service.kill);
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    // The graceful stop exports what is still buffered before the process exits.
    await service.stop();

    expect(new Set(receiver.exports.paths)).toEqual(new Set(['/v1/traces']));
    expect(new Set(receiver.exports.services)).toEqual(new Set(['svc-x']));
    const server = receiver.exports.spans.find((s) => s.name === 'GET /readyz');
    expect(server, service.output()).toBeDefined();
    const statements = receiver.exports.spans.filter(
      (s) => s.traceId === server!.traceId && attribute(s, 'db.system.name') !== undefined,
    );
    expect(statements.length).toBeGreaterThan(0);
    expect(attribute(statements[0]!, 'db.system.name')).toBe(engine === 'postgres' ? 'postgresql' : 'sqlite');
  });
});
