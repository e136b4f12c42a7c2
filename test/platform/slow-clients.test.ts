// Clients that hold sockets (issue 40, finding 3): bodies that trickle in, requests answered before their body
// arrived, more connections or live streams from one address than the limits. Over real sockets, with the time
// limits set low; every wait has a ceiling far above the limit, so a slow machine cannot fail it.
import type { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type Engine, type TestApp } from '../helpers/test-app.js';
import { expectErrorBody, openSocket, rawRequest, watch, type Watched } from './raw-http.js';

const N = '/cxf/svc-core/notification';
const KEY = 'k-slow-notifier-0001';
const OTHER_KEY = 'k-slow-notifier-0002';
const TENANTS = [
  {
    name: 'acme',
    apiKeys: [
      { name: 'notifier', key: KEY, roles: ['NOTIFICATION_ADMIN'] },
      { name: 'other', key: OTHER_KEY, roles: ['NOTIFICATION_ADMIN'] },
    ],
  },
];

/** Resolves with `value` once `promise` settles, or with 'pending' after `ms`. */
const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms).unref())]);

async function listening(engine: Engine, raw: Record<string, any>): Promise<{ t: TestApp; port: number }> {
  const t = await startTestApp(engine, { tenants: TENANTS, ...raw });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { t, port: (t.app.server.address() as { port: number }).port };
}

/** Headers of a body that is announced large and then sent a byte now and then. */
const slowUpload = (headers: string) =>
  `POST ${N} HTTP/1.1\r\nHost: x\r\n${headers}Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"subject":"`;

describeEachEngine('slow clients', (engine) => {
  const sockets: Socket[] = [];
  const track = async (port: number, localAddress?: string) => {
    const s = await openSocket(port, localAddress);
    sockets.push(s);
    return s;
  };
  afterEach(() => {
    for (const s of sockets.splice(0)) s.destroy();
  });

  describe('request time limit of 1 s', () => {
    let t: TestApp;
    let port: number;
    beforeAll(async () => {
      ({ t, port } = await listening(engine, { server: { requestTimeoutSeconds: 1, headersTimeoutSeconds: 1 } }));
    });
    afterAll(() => t.close());

    it('closes every connection whose body trickles in, with 408 and the error object', async () => {
      const watched: Watched[] = [];
      for (let i = 0; i < 20; i++) {
        const socket = await track(port);
        watched.push(watch(socket));
        socket.write(slowUpload(`X-APIKey: ${KEY}\r\n`));
      }
      const drip = setInterval(() => {
        for (const w of watched) if (!w.socket.destroyed) w.socket.write('a');
      }, 200);
      try {
        // Without a request time limit they stayed open for ever; the ceiling is 20 times the limit.
        const closed = await within(Promise.all(watched.map((w) => w.closed)), 20_000);
        expect(closed).not.toBe('pending');
      } finally {
        clearInterval(drip);
      }
      for (const w of watched) expectErrorBody(expect, await w.response, 408, 'CORE_ERROR_REQUEST_TIMEOUT');
    });

    it('closes a connection whose headers never end', async () => {
      const socket = await track(port);
      const w = watch(socket);
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
      const drip = setInterval(() => !socket.destroyed && socket.write('X-A: b\r\n'), 200);
      try {
        expect(await within(w.closed, 20_000)).not.toBe('pending');
      } finally {
        clearInterval(drip);
      }
    });

    it('closes a connection that sends nothing', async () => {
      const w = watch(await track(port));
      expect(await within(w.closed, 20_000)).not.toBe('pending');
    });

    it('still serves requests that arrive in time, several on one connection', async () => {
      const socket = await track(port);
      const w = watch(socket);
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      expect((await w.response).status).toBe(200);
      const second = watch(socket);
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect((await second.response).status).toBe(200);
    });
  });

  describe('answered before the body, and the per-address limits', () => {
    let t: TestApp;
    let port: number;
    beforeAll(async () => {
      // A request time limit far beyond every wait below: what closes a connection here is not the timeout.
      ({ t, port } = await listening(engine, {
        server: { requestTimeoutSeconds: 600, headersTimeoutSeconds: 600 },
        limits: { connectionsPerAddress: 5, streamsPerCaller: 2 },
      }));
    });
    afterAll(() => t.close());

    /** Until the server has seen every earlier connection of this file close (they count against the limits). */
    const quiet = async () => {
      for (let i = 0; i < 400; i++) {
        const n = await new Promise<number>((resolve, reject) =>
          t.app.server.getConnections((err, count) => (err ? reject(err) : resolve(count))),
        );
        if (n === 0) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('connections of earlier tests still open');
    };

    it.each([
      ['401 (no credentials)', '', 1_000_000, 401],
      ['413 (announced beyond the body limit)', `X-APIKey: ${KEY}\r\n`, 100_000_000, 413],
    ])('closes a connection answered %s before its body arrived', async (_what, headers, length, status) => {
      const socket = await track(port);
      const w = watch(socket);
      socket.write(slowUpload(headers).replace('Content-Length: 1000000', `Content-Length: ${length}`));
      const drip = setInterval(() => !socket.destroyed && socket.write('a'), 200);
      try {
        const res = await w.response;
        expect(res.status).toBe(status);
        expect(res.headers.connection).toBe('close');
        // Before, Node read and dropped the rest of the body for as long as the client sent it.
        expect(await within(w.closed, 20_000)).not.toBe('pending');
      } finally {
        clearInterval(drip);
      }
    });

    it('refuses a connection beyond the per-address limit with 429, and takes new ones once one closes', async () => {
      await quiet();
      const held: Socket[] = [];
      for (let i = 0; i < 5; i++) held.push(await track(port));
      const refused = await rawRequest(port, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      const error = expectErrorBody(expect, refused, 429, 'CORE_ERROR_TOO_MANY_CONNECTIONS');
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(error.properties.limit).toBe(5);
      expect(await within(refused.watched.closed, 20_000)).not.toBe('pending');
      // Another address is not held up by this one.
      const elsewhere = await rawRequest(
        port,
        'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        '127.0.0.2',
      );
      expect(elsewhere.status).toBe(200);
      // One closes: a new connection is taken again (the server sees the close a moment later).
      held[0].destroy();
      let status = 0;
      for (let i = 0; i < 200 && status !== 200; i++) {
        const res = await rawRequest(port, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        status = res.status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe(200);
    });

    /** Opens a live stream; resolves with the status of its answer. */
    const stream = async (key: string, localAddress?: string) => {
      const socket = await track(port, localAddress);
      const w = watch(socket);
      socket.write(`GET ${N}/stream HTTP/1.1\r\nHost: x\r\nX-APIKey: ${key}\r\nAccept: text/event-stream\r\n\r\n`);
      return { socket, res: await w.response };
    };

    it('refuses a live stream beyond the limit per caller and per address with 429 and the error object', async () => {
      await quiet();
      const first = await stream(KEY);
      expect(first.res.status).toBe(200);
      expect((await stream(KEY)).res.status).toBe(200);
      // A third for the same caller from the same address; then from another address: the caller's limit.
      for (const address of [undefined, '127.0.0.2']) {
        const { res } = await stream(KEY, address);
        expectErrorBody(expect, res, 429, 'CORE_ERROR_TOO_MANY_STREAMS');
        expect(res.headers['retry-after']).toMatch(/^\d+$/);
      }
      // Another caller from the same address: the address's limit.
      expectErrorBody(expect, (await stream(OTHER_KEY)).res, 429, 'CORE_ERROR_TOO_MANY_STREAMS');
      // Another caller from another address is not affected.
      expect((await stream(OTHER_KEY, '127.0.0.2')).res.status).toBe(200);
      // A stream ends: its caller may open one again.
      first.socket.destroy();
      let status = 0;
      for (let i = 0; i < 200 && status !== 200; i++) {
        const s = await stream(KEY);
        status = s.res.status;
        if (status !== 200) {
          s.socket.destroy();
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      expect(status).toBe(200);
    });
  });
});
