// The upstream of bench/flow.mjs, in its own process like a real process engine: a small JSON answer, an upload
// that is read and counted, a download of a given size, and `/base/work?us=N`: the small answer after N µs of CPU
// work (an engine that looks something up before it answers).
import { createServer } from 'node:http';

const small = JSON.stringify({ id: 'task-1', name: 'Approve order', state: 'open', assignee: 'alice', roles: ['ops'] });
const block = Buffer.alloc(64 * 1024, 7);
const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/base/large') {
    const size = Number(url.searchParams.get('size'));
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size) });
    for (let sent = 0; sent < size; sent += block.length) {
      const part = sent + block.length <= size ? block : block.subarray(0, size - sent);
      if (!res.write(part)) await new Promise((r) => res.once('drain', r));
    }
    res.end();
    return;
  }
  if (url.pathname === '/base/work') {
    const until = performance.now() + Number(url.searchParams.get('us')) / 1000;
    while (performance.now() < until);
  }
  if (req.method === 'POST') {
    let length = 0;
    for await (const c of req) length += c.length;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ length }));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(small)) });
  res.end(small);
});
server.keepAliveTimeout = 30_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
