// The flow proxy over real sockets, against a real upstream on loopback: what reaches the instance, what comes back,
// streaming both ways, failures of the instance and of the caller, and targets that try to leave the instance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describeEachEngine, login, sessionHeaders, startTestApp, type TestApp } from '../helpers/test-app.js';
import { chunks, hashOf, startUpstream, type Upstream } from './upstream.js';

const KEY = 'k-flow-caller-0123';
const USER = { loginName: 'fiona', password: 'fiona-pass-1' };
const F = '/cxf/svc-flow/flow';

/** One raw request line and headers on a fresh connection, exactly as given; answers the status code. */
function rawStatus(
  port: number,
  target: string,
  headers: Record<string, string> = { 'x-apikey': KEY },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => {
      data += d;
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      if (m) {
        socket.destroy();
        resolve(Number(m[1]));
      }
    });
    socket.on('error', reject);
    const lines = [
      `GET ${target} HTTP/1.1`,
      'Host: proxy.test',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      'Connection: close',
      '',
      '',
    ];
    socket.write(lines.join('\r\n'));
  });
}

describeEachEngine('flow proxy', (engine) => {
  let t: TestApp;
  let upstream: Upstream;
  let base: string;
  let port: number;

  beforeAll(async () => {
    upstream = await startUpstream();
    t = await startTestApp(engine, {
      tenants: [
        {
          name: 'acme',
          users: [{ ...USER, roles: ['FLOW'] }],
          apiKeys: [{ name: 'caller', key: KEY, roles: ['FLOW'] }],
        },
      ],
      flow: {
        instances: [
          {
            id: 'main',
            url: `${upstream.url}/base`,
            auth: { type: 'basic', username: 'engine-user', password: 'engine-pass' },
          },
          { id: 'slow', url: `${upstream.url}/base`, timeoutSeconds: 0.5 },
          { id: 'dead', url: 'http://127.0.0.1:1/base' },
        ],
      },
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as { port: number }).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  const get = (path: string, headers: Record<string, string> = { 'x-apikey': KEY }) =>
    fetch(`${base}${path}`, { headers, redirect: 'manual' });

  describe('what reaches the instance and what comes back', () => {
    it('forwards method, path, query and headers; replaces the credentials; adds the forwarding headers', async () => {
      const res = await get(`${F}/main/echo/a%20b/c?x=1&y=two`, {
        'x-apikey': KEY,
        'x-custom': 'kept',
        cookie: 'svc_session=secret',
        'x-csrf-token': 't',
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-upstream')).toBe('echo');
      expect(res.headers.get('set-cookie')).toBe('upstream=1; Path=/');
      const echo: any = await res.json();
      expect(echo.method).toBe('GET');
      expect(echo.url).toBe('/base/echo/a%20b/c?x=1&y=two');
      expect(echo.headers['x-custom']).toBe('kept');
      expect(echo.headers.authorization).toBe(`Basic ${Buffer.from('engine-user:engine-pass').toString('base64')}`);
      for (const h of ['x-apikey', 'cookie', 'x-csrf-token']) expect(echo.headers[h]).toBeUndefined();
      expect(echo.headers['x-svc-user']).toBe('caller');
      expect(echo.headers['x-forwarded-for']).toBe('127.0.0.1');
      expect(echo.headers['x-forwarded-proto']).toBe('http');
      expect(echo.headers['x-forwarded-host']).toBe(`127.0.0.1:${port}`);
      expect(echo.headers.host).toBe(`127.0.0.1:${upstream.port}`);
    });

    it("replaces the caller's Forwarded, X-Real-IP and other X-Forwarded-* headers with its own Forwarded (RFC 7239)", async () => {
      const res = await get(`${F}/main/echo/fwd`, {
        'x-apikey': KEY,
        forwarded: 'for=6.6.6.6;host=evil.example;proto=https',
        'x-real-ip': '6.6.6.6',
        'x-forwarded-for': '6.6.6.6',
        'x-forwarded-host': 'evil.example',
        'x-forwarded-port': '1',
        'x-forwarded-prefix': '/evil',
      });
      expect(res.status).toBe(200);
      const echo: any = await res.json();
      expect(echo.headers.forwarded).toBe(`for=127.0.0.1;proto=http;host="127.0.0.1:${port}"`);
      for (const h of ['x-real-ip', 'x-forwarded-port', 'x-forwarded-prefix'])
        expect(echo.headers[h], h).toBeUndefined();
      expect(echo.headers['x-forwarded-for']).toBe('127.0.0.1');
      expect(echo.headers['x-forwarded-host']).toBe(`127.0.0.1:${port}`);
    });

    it("never passes the platform's own cookies from the instance to the caller; the others come back without Domain", async () => {
      const lines = [
        'svc_session=evil; Path=/; HttpOnly',
        'theme=dark; Path=/; HttpOnly',
        'SVC_SESSION=evil; Path=/',
        ' svc_session =evil; Path=/',
        '__Host-svc_session=evil; Path=/; Secure',
        '__secure-svc_session=evil; Path=/; Secure',
        '=svc_session=evil; Path=/',
        'svc_session',
        'keep=1; Domain=127.0.0.1; Path=/app',
        'lang=en; domain=.example.com;Secure',
      ];
      const res = await get(`${F}/main/set-cookie?${lines.map((c) => `c=${encodeURIComponent(c)}`).join('&')}`);
      expect(res.status).toBe(200);
      expect(res.headers.getSetCookie()).toEqual([
        'theme=dark; Path=/; HttpOnly',
        'keep=1; Path=/app',
        'lang=en;Secure',
      ]);
      // One Set-Cookie line alone, the session's: none reaches the caller.
      const only = await get(`${F}/main/set-cookie?c=${encodeURIComponent('svc_session=evil; Path=/')}`);
      expect(only.status).toBe(200);
      expect(only.headers.getSetCookie()).toEqual([]);
      expect(await only.text()).toBe('cookies set');
    });

    it("keeps the instance's hop-by-hop answer headers behind, passes the others as sent, answers the request id", async () => {
      const lines = [
        'x-kept: one',
        'x-kept: two',
        'proxy-authenticate: Basic realm="instance"',
        'proxy-connection: keep-alive',
        'te: trailers',
        'x-other: 3',
      ];
      const headersOf = (extra: string[] = []) =>
        get(`${F}/main/headers?${[...lines, ...extra].map((h) => `h=${encodeURIComponent(h)}`).join('&')}`);
      const res = await headersOf();
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('headers set');
      expect(res.headers.get('x-kept')).toBe('one, two');
      expect(res.headers.get('x-other')).toBe('3');
      for (const name of ['proxy-authenticate', 'proxy-connection', 'te']) expect(res.headers.has(name)).toBe(false);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      // An instance's own X-Request-Id replaces the proxy's, one line.
      const own = await headersOf(['x-request-id: from-the-instance']);
      expect(own.headers.get('x-request-id')).toBe('from-the-instance');
    });

    it('takes the target from targetUrl the same way, and forwards the other query parameters', async () => {
      const echo: any = await (await get(`${F}/main?targetUrl=${encodeURIComponent('/echo/from-query')}&z=1`)).json();
      expect(echo.url).toBe('/base/echo/from-query?z=1');
      const bare: any = await (await get(`${F}/main`)).json();
      expect(bare.url).toBe('/base');
    });

    it('streams a request body through unchanged (POST, PUT, DELETE), whatever its type', async () => {
      const size = 5 * 1024 * 1024 + 123;
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const res = await fetch(`${base}${F}/main/echo/upload`, {
          method,
          headers: { 'x-apikey': KEY, 'content-type': 'application/x-anything' },
          body: Readable.toWeb(Readable.from(chunks(size))) as any,
          duplex: 'half',
        } as RequestInit);
        expect(res.status).toBe(200);
        const echo: any = await res.json();
        expect(echo).toMatchObject({ method, length: size, sha256: hashOf(size) });
        expect(echo.headers['content-type']).toBe('application/x-anything');
      }
    });

    it('passes a JSON body as bytes, not parsed (no JSON rules apply to it)', async () => {
      const body = '{"a": 1e400, "b": "\\u0000", "c": [1,2,3]}';
      const res = await fetch(`${base}${F}/main/echo/json`, {
        method: 'POST',
        headers: { 'x-apikey': KEY, 'content-type': 'application/json' },
        body,
      });
      const echo: any = await res.json();
      expect(echo.sha256).toBe(createHash('sha256').update(body).digest('hex'));
    });

    it('passes redirects through as they are, never following them', async () => {
      const res = await get(`${F}/main/redirect`);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/somewhere/else?x=1');
      expect(await res.text()).toBe('moved');
    });

    it.each([400, 404, 409, 500, 503])('passes the instance status %i with its own body', async (code) => {
      const res = await get(`${F}/main/status/${code}`);
      expect(res.status).toBe(code);
      expect(res.headers.get('x-upstream')).toBe('yes');
      expect(await res.json()).toEqual({ upstreamStatus: code });
    });

    it('streams chunked answers and large downloads unchanged', async () => {
      expect(await (await get(`${F}/main/chunked`)).text()).toBe('one,two,three');
      const size = 20 * 1024 * 1024 + 7;
      const res = await get(`${F}/main/large?size=${size}`);
      expect(res.headers.get('x-size')).toBe(String(size));
      const h = createHash('sha256');
      for await (const c of res.body as any) h.update(c);
      expect(h.digest('hex')).toBe(hashOf(size));
    });
  });

  describe('credentials', () => {
    it('no credential: 401, nothing forwarded', async () => {
      const before = upstream.seen.length;
      const res = await fetch(`${base}${F}/main/echo`);
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).error.code).toBe(540);
      expect(upstream.seen.length).toBe(before);
    });

    it('a session reads; its writes need the CSRF token; its cookie never reaches the instance', async () => {
      const s = await login(t, 'acme', USER.loginName, USER.password);
      const read = await get(`${F}/main/echo/s`, sessionHeaders(s, false));
      expect(read.status).toBe(200);
      expect(((await read.json()) as any).headers.cookie).toBeUndefined();
      const before = upstream.seen.length;
      const refused = await fetch(`${base}${F}/main/echo/s`, {
        method: 'POST',
        headers: { ...sessionHeaders(s, false), 'content-type': 'text/plain' },
        body: 'x',
      });
      expect(refused.status).toBe(403);
      expect(upstream.seen.length).toBe(before);
      const written = await fetch(`${base}${F}/main/echo/s`, {
        method: 'POST',
        headers: { ...sessionHeaders(s, true), 'content-type': 'text/plain' },
        body: 'x',
      });
      expect(written.status).toBe(200);
      expect(((await written.json()) as any).headers['x-svc-user']).toBe('fiona');
    });

    it('an access token works, and its Authorization header is replaced by the instance credentials', async () => {
      const token = (
        await t.request({ method: 'POST', url: '/cxf/svc-core/authentication/token', headers: { 'x-apikey': KEY } })
      ).json().access_token;
      const res = await get(`${F}/main/echo/t`, { authorization: `Bearer ${token}` });
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).headers.authorization).toMatch(/^Basic /);
    });
  });

  describe('failures', () => {
    it('an unknown instance is 404, an unreachable one 502, a slow one 504, each the error object', async () => {
      for (const [path, status, key] of [
        [`${F}/nope/echo`, 404, 'FLOW_ERROR_INSTANCE_NOT_FOUND'],
        [`${F}/dead/echo`, 502, 'FLOW_ERROR_UPSTREAM_UNREACHABLE'],
        [`${F}/slow/slow`, 504, 'FLOW_ERROR_UPSTREAM_TIMEOUT'],
      ] as const) {
        const res = await get(path);
        expect(res.status, path).toBe(status);
        expect(((await res.json()) as any).error).toMatchObject({ messageKey: key, code: status });
      }
    });

    it('an instance that resets the connection mid-body cuts the answer; the proxy goes on', async () => {
      const res = await get(`${F}/main/reset`);
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();
      expect((await get(`${F}/main/echo/after-reset`)).status).toBe(200);
    });

    it('a slow reader slows the upstream (backpressure holds), then gets every byte', async () => {
      const size = 256 * 1024 * 1024;
      const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: `${F}/main/large?size=${size}`, headers: { 'x-apikey': KEY } },
          resolve,
        );
        req.on('error', reject);
        req.end();
      });
      expect(res.statusCode).toBe(200);
      res.pause(); // the caller reads nothing for a while
      await new Promise((r) => setTimeout(r, 500));
      const stalledAt = upstream.largeSent();
      // Socket buffers on three connections hold some megabytes; the upstream must not get far beyond them.
      expect(stalledAt).toBeLessThan(64 * 1024 * 1024);
      await new Promise((r) => setTimeout(r, 300));
      expect(upstream.largeSent() - stalledAt).toBeLessThan(1024 * 1024); // still stalled
      const h = createHash('sha256');
      let got = 0;
      for await (const c of res) {
        h.update(c as Buffer);
        got += (c as Buffer).length;
      }
      expect(got).toBe(size);
      expect(h.digest('hex')).toBe(hashOf(size));
    });

    it('a caller that hangs up aborts the upstream call at once', async () => {
      const closed = upstream.hangClosed();
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(`${base}${F}/main/hang`, { headers: { 'x-apikey': KEY } }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', () => undefined);
        req.on('close', () => resolve());
        req.end();
        setTimeout(() => reject(new Error('no first chunk')), 5000);
      });
      await Promise.race([
        closed,
        new Promise((_, reject) => setTimeout(() => reject(new Error('the upstream did not see the abort')), 2000)),
      ]);
    });
  });

  describe('targets that leave the instance answer 400 and forward nothing', () => {
    // Inputs from published proxy path-traversal and request-smuggling advisories (encoded dots, double encoding,
    // overlong UTF-8, backslashes, protocol-relative and absolute URLs, userinfo, CR/LF and NUL), raw on the wire.
    const targets = [
      `${F}/main/../../etc/passwd`,
      `${F}/main/..`,
      `${F}/main/a/../../b`,
      `${F}/main/%2e%2e/x`,
      `${F}/main/%2E%2E/x`,
      `${F}/main/.%2e/x`,
      `${F}/main/%2e./x`,
      `${F}/main/..%2fx`,
      `${F}/main/..%2Fx`,
      `${F}/main/%252e%252e/x`,
      `${F}/main/%25252e%25252e/x`,
      `${F}/main/..%5cx`,
      `${F}/main/..\\x`,
      `${F}/main/%c0%ae%c0%ae/x`,
      `${F}/main/%e0%80%ae%e0%80%ae/x`,
      `${F}/main//evil.example/x`,
      `${F}/main/%2f%2fevil.example/x`,
      `${F}/main/x%00y`,
      `${F}/main/x%0d%0aSet-Cookie:%20a=b`,
      `${F}/main/x%0aInjected:%20yes`,
      `${F}/main?targetUrl=http://evil.example/`,
      `${F}/main?targetUrl=${encodeURIComponent('//evil.example/x')}`,
      `${F}/main?targetUrl=@evil.example`,
      `${F}/main?targetUrl=evil`,
      `${F}/main?targetUrl=${encodeURIComponent('/ok/../../x')}`,
      `${F}/main?targetUrl=${encodeURIComponent('/%2e%2e/x')}`,
      `${F}/main?targetUrl=${encodeURIComponent('http:/evil.example')}`,
      `${F}/main?targetUrl=${encodeURIComponent('/x\r\nHost: evil')}`,
      `${F}/main?targetUrl=/a&targetUrl=/b`,
      `${F}/main/echo?targetUrl=/other`,
      `${F}/main/javascript:alert(1)`,
      `${F}/main/echo?x=%0d%0aSet-Cookie:%20a=b`,
      `${F}/main/echo?x=%zz&y=%0aInjected`,
      // Path parameters (`;`), which Java servlet containers strip from a segment before they resolve `..`.
      `${F}/main/..;/secret`,
      `${F}/main/echo/..;/..;/secret`,
      `${F}/main/a;b/c`,
      `${F}/main/a;x=1/b`,
      `${F}/main/echo;jsessionid=1`,
      `${F}/main/echo/%3b`,
      `${F}/main/echo/x%3Bjsessionid=1`,
      `${F}/main/%2e%2e%3b/secret`,
      `${F}/main/echo/%253b`,
      `${F}/main?targetUrl=${encodeURIComponent('/..;/secret')}`,
      `${F}/main?targetUrl=${encodeURIComponent('/a;b/c')}`,
      `${F}/main?targetUrl=${encodeURIComponent('/a%3bb')}`,
    ];
    it.each(targets)('%s', async (target) => {
      const before = upstream.seen.length;
      const status = await rawStatus(port, target);
      expect(status).toBe(400);
      expect(upstream.seen.length).toBe(before);
    });

    it('a CR or LF in a header the caller sends never reaches the instance as a new header', async () => {
      const before = upstream.seen.length;
      // Node's parser refuses a bare CR inside a header value before any route runs.
      const status = await rawStatus(port, `${F}/main/echo`, { 'x-apikey': KEY, 'x-evil': 'a\rInjected: yes' });
      expect(status).toBe(400);
      expect(upstream.seen.length).toBe(before);
    });

    it('plain paths with dots in names, encoded slashes in names and @ stay allowed, and so does ; in a query', async () => {
      for (const [target, expected] of [
        [`${F}/main/echo/file.v1.json`, '/base/echo/file.v1.json'],
        [`${F}/main/echo/users/a@b.example`, '/base/echo/users/a@b.example'],
        [`${F}/main/echo/...`, '/base/echo/...'],
        [`${F}/main/echo?x=a;b`, '/base/echo?x=a;b'],
        [`${F}/main?targetUrl=${encodeURIComponent('/echo/q?x=a;b')}`, '/base/echo/q?x=a;b'],
      ]) {
        const res = await get(target);
        expect(res.status, target).toBe(200);
        expect(((await res.json()) as any).url).toBe(expected);
      }
    });
  });
});

describeEachEngine('flow proxy for a caller over IPv6', (engine) => {
  let t: TestApp;
  let upstream: Upstream;
  let base: string | undefined;
  let port = 0;
  beforeAll(async () => {
    upstream = await startUpstream();
    t = await startTestApp(engine, {
      tenants: [{ name: 'acme', apiKeys: [{ name: 'caller', key: KEY }] }],
      flow: { instances: [{ id: 'main', url: `${upstream.url}/base` }] },
    });
    try {
      await t.app.listen({ host: '::1', port: 0 });
      port = (t.app.server.address() as { port: number }).port;
      base = `http://[::1]:${port}`;
    } catch {
      base = undefined; // no IPv6 loopback on this machine
    }
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  it('quotes the IPv6 address in Forwarded as "[::1]"', async (ctx) => {
    if (!base) return ctx.skip();
    const res = await fetch(`${base}${F}/main/echo/v6`, { headers: { 'x-apikey': KEY, forwarded: 'for=6.6.6.6' } });
    expect(res.status).toBe(200);
    const echo: any = await res.json();
    expect(echo.headers.forwarded).toBe(`for="[::1]";proto=http;host="[::1]:${port}"`);
    expect(echo.headers['x-forwarded-for']).toBe('::1');
  });
});

describe('flow proxy memory', () => {
  let t: TestApp;
  let upstream: Upstream;
  let base: string;
  beforeAll(async () => {
    upstream = await startUpstream();
    t = await startTestApp('sqlite', {
      tenants: [{ name: 'acme', apiKeys: [{ name: 'caller', key: KEY }] }],
      flow: { instances: [{ id: 'main', url: `${upstream.url}/base` }] },
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  it('moves 200 MB each way with flat memory (far past the 1 MiB limit of a buffered body)', async () => {
    const size = 200 * 1024 * 1024;
    global.gc?.();
    const start = process.memoryUsage().rss;
    let peak = start;
    const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    try {
      const up = await fetch(`${base}${F}/main/echo/big`, {
        method: 'POST',
        headers: { 'x-apikey': KEY, 'content-type': 'application/octet-stream' },
        body: Readable.toWeb(Readable.from(chunks(size))) as any,
        duplex: 'half',
      } as RequestInit);
      expect(((await up.json()) as any).length).toBe(size);
      const down = await fetch(`${base}${F}/main/large?size=${size}`, { headers: { 'x-apikey': KEY } });
      let got = 0;
      for await (const c of down.body as any) got += c.length;
      expect(got).toBe(size);
    } finally {
      clearInterval(sample);
    }
    // Upstream, proxy and client share this process: each holds socket buffers and stream chunks, not bodies.
    expect(peak - start).toBeLessThan(80 * 1024 * 1024);
  });
});
