// The floor of bench/flow.mjs: the least a proxy can do with the same client (undici), no framework, credentials,
// checks or header policy. Forwards every request to UPSTREAM + its path and streams the answer back.
import { createServer } from 'node:http';
import { Pool } from 'undici';

const pool = new Pool(process.env.UPSTREAM, { connections: 50 });
const server = createServer((req, res) => {
  pool
    .stream(
      { path: `/base${req.url}`, method: req.method, headers: { 'x-forwarded-for': req.socket.remoteAddress } },
      ({ statusCode, headers }) => {
        res.statusCode = statusCode;
        for (const [name, value] of Object.entries(headers))
          if (name !== 'connection' && name !== 'keep-alive') res.setHeader(name, value);
        return res;
      },
    )
    .catch(() => res.destroy());
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
