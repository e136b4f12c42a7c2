// Requests broken below HTTP's semantics (framing, header size, no Host) are refused by Node's parser before any
// route runs; the answer is still the error object of decisions.md section 4, over a real socket.
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';

/** Sends raw bytes and reads until the server closes: status line, headers and body. */
function raw(
  port: number,
  request: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(request, 'latin1');
  });
}

describeEachEngine('transport-level errors', (engine) => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(() => t.close());

  const cases: Array<[string, string, number, string]> = [
    [
      'headers larger than the limit',
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'CORE_ERROR_HEADERS_TOO_LARGE',
    ],
    ['a control character in the target', 'GET /he\x01alth HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'CORE_ERROR_BAD_REQUEST'],
    [
      'a Content-Length that is not a number',
      'POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      400,
      'CORE_ERROR_BAD_REQUEST',
    ],
    [
      'two different Content-Lengths',
      'POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
      400,
      'CORE_ERROR_BAD_REQUEST',
    ],
    [
      'a header line without a colon',
      'GET /health HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n',
      400,
      'CORE_ERROR_BAD_REQUEST',
    ],
    ['an HTTP/1.1 request without Host', 'GET /health HTTP/1.1\r\n\r\n', 400, 'CORE_ERROR_BAD_REQUEST'],
    ['a request line that is not HTTP', 'HELLO\r\n\r\n', 400, 'CORE_ERROR_BAD_REQUEST'],
  ];
  for (const [what, request, status, messageKey] of cases) {
    it(`answers ${what} with ${status} and the error object`, async () => {
      const res = await raw(port, request);
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const body = JSON.parse(res.body);
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error).toMatchObject({ messageKey, code: status });
      expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'messageKey', 'name', 'properties']);
    });
  }

  it('keeps serving well-formed requests on other connections', async () => {
    const res = await raw(port, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(200);
  });
});
