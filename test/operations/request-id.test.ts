// Every answer carries X-Request-Id and every log line of the request the same id; a caller's own id is kept only when
// it comes through a trusted proxy and is a sane token.
import { Writable } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import type { Database } from '../../src/platform/db/database.js';
import { describeEachEngine, openTestDatabase } from '../helpers/test-app.js';
import { openSse } from '../helpers/sse-client.js';

const KEY = 'k-request-id-admin-01';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describeEachEngine('request ids', (engine) => {
  let database: Database | undefined;
  let built: App | undefined;
  let lines: Array<Record<string, any>> = [];
  afterEach(async () => {
    await built?.close().catch(() => undefined);
    await database?.destroy();
    built = database = undefined;
    lines = [];
  });

  async function start(trustProxy: boolean, logLevel: 'info' | 'warn' = 'info'): Promise<App> {
    database = await openTestDatabase(engine);
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const config = parseConfig({
      server: { trustProxy, logLevel },
      identity: { bootstrapAdminPassword: 'admin-pass-1' },
      flow: { instances: [{ id: 'dead', url: 'http://127.0.0.1:1/base' }] },
      tenants: [{ name: 'default', apiKeys: [{ name: 'admin', key: KEY, roles: ['NOTIFICATION_ADMIN'] }] }],
    });
    // The service's own logger options (level, redaction), with lines captured here instead of stdout.
    built = await buildApp(config, { database, logger: { level: logLevel, stream } });
    return built;
  }
  const logOf = (id: string) => lines.filter((l) => l.reqId === id);

  it('gives every request an id, answers it and logs it on each of the request lines', async () => {
    await start(false);
    const ok = await built!.app.inject({
      method: 'GET',
      url: '/cxf/svc-core/notification',
      headers: { 'x-apikey': KEY },
    });
    const missing = await built!.app.inject({ method: 'GET', url: '/no/such/route' });
    const refused = await built!.app.inject({ method: 'GET', url: '/cxf/svc-core/notification' });
    const ids = [ok, missing, refused].map((r) => r.headers['x-request-id'] as string);
    expect([ok.statusCode, missing.statusCode, refused.statusCode]).toEqual([200, 404, 401]);
    for (const id of ids) {
      expect(id).toMatch(UUID);
      expect(logOf(id).map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
    }
    expect(new Set(ids).size).toBe(3);
    // The secret header is still redacted on those lines.
    expect(JSON.stringify(logOf(ids[0]))).not.toContain(KEY);
  });

  it('writes no line for a request below the level, and the id on a line written above it', async () => {
    // Each request's logger is made on its first line (request-logger.ts): the lines that are written keep the id.
    await start(false, 'warn');
    const ok = await built!.app.inject({
      method: 'GET',
      url: '/cxf/svc-core/notification',
      headers: { 'x-apikey': KEY },
    });
    const failed = await built!.app.inject({
      method: 'GET',
      url: '/cxf/svc-flow/flow/dead/tasks',
      headers: { 'x-apikey': KEY },
    });
    expect([ok.statusCode, failed.statusCode]).toEqual([200, 502]);
    expect(logOf(ok.headers['x-request-id'] as string)).toEqual([]);
    const written = logOf(failed.headers['x-request-id'] as string);
    expect(written.map((l) => [l.level, l.msg])).toEqual([[50, 'request failed']]);
    expect(lines.filter((l) => l.reqId === undefined && l.msg === 'request failed')).toEqual([]);
  });

  it('ignores a caller id unless the service trusts its proxy', async () => {
    await start(false);
    const res = await built!.app.inject({ method: 'GET', url: '/livez', headers: { 'x-request-id': 'from-client-1' } });
    expect(res.headers['x-request-id']).toMatch(UUID);
  });

  it('keeps a trusted proxy id when it is a sane token, and makes one otherwise', async () => {
    await start(true);
    const cases: Array<[string, boolean]> = [
      ['lb-7f3a9c2e-0001', true],
      ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', true],
      ['abc:def/ghi+jkl=', true],
      ['x'.repeat(128), true],
      ['x'.repeat(129), false],
      ['has space', false],
      ['semi;colon', false],
      ['', false],
    ];
    for (const [given, kept] of cases) {
      const res = await built!.app.inject({
        method: 'GET',
        url: '/cxf/svc-core/notification',
        headers: { 'x-apikey': KEY, 'x-request-id': given },
      });
      expect(res.statusCode).toBe(200);
      const answered = res.headers['x-request-id'] as string;
      if (kept) expect(answered).toBe(given);
      else expect(answered).toMatch(UUID);
      expect(logOf(answered)).toHaveLength(2);
    }
  });

  it('answers the id on a live stream too, which writes its own headers', async () => {
    await start(true);
    await built!.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (built!.app.server.address() as { port: number }).port;
    const sse = await openSse(`http://127.0.0.1:${port}/cxf/svc-core/notification/stream`, {
      'x-apikey': KEY,
      'x-request-id': 'stream-id-42',
    });
    expect(sse.status).toBe(200);
    expect(sse.headers['x-request-id']).toBe('stream-id-42');
    sse.close();
  });
});
