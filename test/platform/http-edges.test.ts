// HTTP edges found from outside (issue 40, finding 12): one Host; an expectation other than 100-continue; more header
// lines than the limit. Each refusal is the error object, over a real socket (a client library would not send them).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { expectErrorBody, rawRequest } from './raw-http.js';

const N = '/cxf/svc-core/notification';
const KEY = 'k-edges-notifier-0001';

describeEachEngine('HTTP edges', (engine) => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp(engine, {
      tenants: [{ name: 'acme', apiKeys: [{ name: 'notifier', key: KEY, roles: ['NOTIFICATION_ADMIN'] }] }],
      limits: { headerCount: 50 },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(() => t.close());

  it('answers two Host headers with 400 and the error object, and closes the connection', async () => {
    const res = await rawRequest(port, 'GET /health HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n');
    expectErrorBody(expect, res, 400, 'CORE_ERROR_BAD_REQUEST');
    expect(res.headers.connection).toBe('close');
    await res.watched.closed;
  });

  it('answers an Expect other than 100-continue with 417 and the error object', async () => {
    const res = await rawRequest(port, 'GET /health HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\n\r\n');
    expectErrorBody(expect, res, 417, 'CORE_ERROR_EXPECTATION_FAILED');
  });

  it('keeps answering Expect: 100-continue', async () => {
    const body = JSON.stringify({ subject: 'continued', recipients: ['bob'], recipientsType: 'user' });
    const res = await rawRequest(
      port,
      `POST ${N} HTTP/1.1\r\nHost: x\r\nX-APIKey: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n${body}`,
    );
    // The interim 100 comes first; the final answer is what the body deserves.
    expect([100, 200]).toContain(res.status);
  });

  it('answers more header lines than the limit with 431 and the error object, never a silent cut', async () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `X-H${i}: v\r\n`).join('');
    // 50 is the limit here; Host and Connection are two of them.
    const over = await rawRequest(port, `GET /health HTTP/1.1\r\nHost: x\r\n${lines(49)}Connection: close\r\n\r\n`);
    const error = expectErrorBody(expect, over, 431, 'CORE_ERROR_HEADERS_TOO_LARGE');
    expect(error.properties).toEqual({ maxHeaderCount: 50 });
    const fits = await rawRequest(port, `GET /health HTTP/1.1\r\nHost: x\r\n${lines(48)}Connection: close\r\n\r\n`);
    expect(fits.status).toBe(200);
    // Past Node's own count of 2,000 (which dropped the rest and served the request), within its 16 KB of headers.
    const short = Array.from({ length: 2100 }, (_, i) => `${i.toString(36)}:\r\n`).join('');
    expect(Buffer.byteLength(short)).toBeLessThan(15_000);
    expectErrorBody(
      expect,
      await rawRequest(port, `GET /health HTTP/1.1\r\nHost: x\r\n${short}\r\n`),
      431,
      'CORE_ERROR_HEADERS_TOO_LARGE',
    );
  });
});
