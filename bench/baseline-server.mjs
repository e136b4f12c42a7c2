// The baseline of every benchmark: a bare Fastify route answering a fixed JSON body, in its own process
// (like the service), so it does not share the load generator's event loop.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

// Large bodies come in a file: one environment string may hold at most 128 KiB.
const body = JSON.parse(
  process.env.BASELINE_BODY_FILE
    ? readFileSync(process.env.BASELINE_BODY_FILE, 'utf8')
    : (process.env.BASELINE_BODY ?? '{}'),
);
const app = Fastify({ logger: false });
app.get('/*', async () => body);
app.post('/*', async () => body);
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`${app.server.address().port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
