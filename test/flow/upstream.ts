// A real upstream for the proxy tests: a node:http server on loopback with the behaviours a process engine (or a
// broken network) shows: echo, slow headers, large and chunked bodies, redirects, error statuses, a reset mid-body,
// a body that never ends (to see a caller's abort arrive) and Set-Cookie lines of the caller's choosing.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createHash } from 'node:crypto';

export interface Upstream {
  url: string;
  port: number;
  /** Every request the upstream received: method, raw url, headers. */
  seen: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }>;
  /** Resolves when the `/hang` request's connection closes (the proxy aborted it). */
  hangClosed(): Promise<void>;
  /** Bytes of the latest `/large` answer that the upstream's socket has accepted so far. */
  largeSent(): number;
  close(): Promise<void>;
}

/** A deterministic body of `size` bytes, in chunks, and its sha256. */
export function* chunks(size: number, chunk = 64 * 1024): Generator<Buffer> {
  const block = Buffer.alloc(chunk);
  for (let i = 0; i < chunk; i++) block[i] = (i * 31 + 7) & 0xff;
  for (let sent = 0; sent < size; sent += chunk) yield sent + chunk <= size ? block : block.subarray(0, size - sent);
}
export function hashOf(size: number): string {
  const h = createHash('sha256');
  for (const c of chunks(size)) h.update(c);
  return h.digest('hex');
}

export async function startUpstream(): Promise<Upstream> {
  const seen: Upstream['seen'] = [];
  let hangResolve: () => void = () => undefined;
  let hang = new Promise<void>((r) => (hangResolve = r));
  let largeSent = 0;
  const server: Server = createServer(async (req, res) => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    const path = req.url!.split('?')[0];
    if (path.startsWith('/base/slow')) {
      await new Promise((r) => setTimeout(r, 3000));
      if (!res.destroyed) res.end('late');
      return;
    }
    if (path === '/base/large') {
      const size = Number(new URL(req.url!, 'http://x').searchParams.get('size'));
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-size': String(size) });
      largeSent = 0;
      for (const c of chunks(size)) {
        const more = res.write(c);
        largeSent += c.length;
        if (!more) await new Promise((r) => res.once('drain', r));
      }
      res.end();
      return;
    }
    if (path === '/base/set-cookie') {
      // Each `c` query value becomes one Set-Cookie line of the answer, as given.
      const lines = new URL(req.url!, 'http://x').searchParams.getAll('c');
      res.writeHead(200, [['content-type', 'text/plain'], ...lines.map((line) => ['set-cookie', line])].flat());
      res.end('cookies set');
      return;
    }
    if (path === '/base/headers') {
      // Each `h` query value `name: value` becomes one header line of the answer, as given.
      const lines = new URL(req.url!, 'http://x').searchParams.getAll('h');
      res.writeHead(
        200,
        lines.flatMap((line) => line.split(/: (.*)/s, 2)),
      );
      res.end('headers set');
      return;
    }
    if (path === '/base/redirect') {
      res.writeHead(302, { location: '/somewhere/else?x=1' });
      res.end('moved');
      return;
    }
    if (path.startsWith('/base/status/')) {
      const code = Number(path.split('/').pop());
      res.writeHead(code, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      res.end(JSON.stringify({ upstreamStatus: code }));
      return;
    }
    if (path === '/base/chunked') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (const part of ['one,', 'two,', 'three']) {
        res.write(part);
        await new Promise((r) => setTimeout(r, 20));
      }
      res.end();
      return;
    }
    if (path === '/base/reset') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100000' });
      res.write('x'.repeat(1000));
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    if (path === '/base/hang') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('started');
      res.on('close', () => hangResolve());
      return;
    }
    // Echo: what arrived, with the body's length and hash (read as a stream).
    const h = createHash('sha256');
    let length = 0;
    for await (const c of req) {
      h.update(c as Buffer);
      length += (c as Buffer).length;
    }
    res.writeHead(200, {
      'content-type': 'application/json',
      'x-upstream': 'echo',
      'set-cookie': 'upstream=1; Path=/',
    });
    res.end(
      JSON.stringify({ method: req.method, url: req.url, headers: req.headers, length, sha256: h.digest('hex') }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    hangClosed: () => hang,
    largeSent: () => largeSent,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      hang = new Promise<void>((r) => (hangResolve = r));
    },
  };
}
