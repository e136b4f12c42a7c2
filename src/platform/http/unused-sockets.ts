import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Connections that have not sent a byte yet. Clients open them ahead of need (browsers' speculative connections,
 * undici after an aborted request); Node's `server.close()` closes idle keep-alive connections but waits for these
 * until they time out, which held every shutdown after an aborted live stream for ~3.8 s. `closeUnused` ends them:
 * nothing was asked on them, so nothing is cut.
 */
export function trackUnusedSockets(server: Server): { closeUnused(): void } {
  const unused = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  server.on('request', (req) => unused.delete(req.socket));
  return {
    closeUnused() {
      for (const socket of unused) if (socket.bytesRead === 0) socket.destroy();
    },
  };
}
