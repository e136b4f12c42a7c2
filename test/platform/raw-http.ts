// HTTP over a bare socket, for what a client library would not send (two Host headers, a body that never ends) and for
// what happens to the connection itself (closed or kept).
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A connected socket to 127.0.0.1:port, from `localAddress` when given (any 127.x.y.z is this machine). */
export function openSocket(port: number, localAddress?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The first whole response in `bytes` (by Content-Length), or undefined while incomplete. */
export function parseResponse(bytes: Buffer): RawResponse | undefined {
  const text = bytes.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
  const length = Number(headers['content-length'] ?? 0);
  const body = bytes.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
  if (body.length < length) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.subarray(0, length).toString('utf8') };
}

export interface Watched {
  socket: Socket;
  /** Resolves with the first whole response; rejects if the socket closes without one. */
  response: Promise<RawResponse>;
  /** Resolves when the socket is closed (by either side), with the time it took from `watch`. */
  closed: Promise<number>;
}

/** Watches a socket for its first response and its close; errors (a reset) count as a close. */
export function watch(socket: Socket): Watched {
  const started = Date.now();
  const chunks: Buffer[] = [];
  let settle: { resolve(r: RawResponse): void; reject(e: Error): void } | undefined;
  const response = new Promise<RawResponse>((resolve, reject) => (settle = { resolve, reject }));
  response.catch(() => undefined);
  socket.on('data', (c) => {
    chunks.push(c);
    const r = parseResponse(Buffer.concat(chunks));
    if (r) settle?.resolve(r);
  });
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => {
      settle?.reject(new Error(`closed without a response (${Buffer.concat(chunks).length} bytes received)`));
      resolve(Date.now() - started);
    }),
  );
  return { socket, response, closed };
}

/** Sends raw bytes on a new connection and reads the first response. */
export async function rawRequest(
  port: number,
  request: string,
  localAddress?: string,
): Promise<RawResponse & { watched: Watched }> {
  const socket = await openSocket(port, localAddress);
  const watched = watch(socket);
  socket.write(request, 'latin1');
  const res = await watched.response;
  return { ...res, watched };
}

/** The error object of decisions.md section 4, checked in full. */
export function expectErrorBody(expect: (v: unknown) => any, res: RawResponse, status: number, messageKey: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(res.body);
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toMatchObject({ messageKey, code: status });
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'messageKey', 'name', 'properties']);
  return body.error;
}
