// Fastify's own floor for bench/flow-callgrind.mjs (issue 47 goal 5, task 3): the bare proxy's work
// (bench/flow-bare-proxy.mjs: undici `stream`, the answer's headers copied but for two) inside one Fastify route with no
// hooks, plugins, schema or logger, the answer written on the raw response after `reply.hijack()`. What it costs over
// the bare proxy is Fastify's per-request work (router, Request/Reply, lifecycle); what the service costs over it is
// the platform's and the flow module's.
import Fastify from 'fastify';
import { Pool } from 'undici';

const pool = new Pool(process.env.UPSTREAM, { connections: 50 });
const app = Fastify({ logger: false, keepAliveTimeout: 30_000 });
app.get('/*', (request, reply) => {
  reply.hijack();
  const res = reply.raw;
  pool
    .stream(
      {
        path: `/base${request.url}`,
        method: request.method,
        headers: { 'x-forwarded-for': request.socket.remoteAddress },
      },
      ({ statusCode, headers }) => {
        res.statusCode = statusCode;
        for (const [name, value] of Object.entries(headers))
          if (name !== 'connection' && name !== 'keep-alive') res.setHeader(name, value);
        return res;
      },
    )
    .catch(() => res.destroy());
});
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${app.server.address().port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
