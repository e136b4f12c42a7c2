import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The reply a response belongs to, for the response's `close` listener. */
const REPLY = Symbol('in-flight reply');

export interface InFlightRequests {
  /** Resolves once every request that has started has reached its answer, or after `timeoutMs`. */
  drained(timeoutMs: number): Promise<void>;
}

/**
 * Requests from `onRequest` until their answer is handed to `onSend`, so a shutdown can let handlers finish
 * before the database closes. The closing server stops taking requests and resolves as soon as the last
 * connection is gone, but a handler whose client hung up still runs on: without this it would meet a closed
 * database and log a failure for work that was merely interrupted.
 * A route that takes over the raw response (`reply.hijack()`: the flow proxy, live streams) never reaches
 * `onSend`; it counts as running until its response closes.
 */
export function trackInFlight(app: FastifyInstance): InFlightRequests {
  const running = new Set<FastifyRequest>();
  let onIdle: (() => void) | undefined;
  const release = (request: FastifyRequest) => {
    if (running.delete(request) && running.size === 0) onIdle?.();
  };
  // One listener for every response (no closure, no `once` wrapper per request): the response carries its reply.
  function onClose(this: ServerResponse & { [REPLY]?: FastifyReply }) {
    const reply = this[REPLY];
    // `sent` is true for a hijacked reply; an ordinary one whose client left still has its handler running.
    if (reply?.sent) release(reply.request);
  }
  app.addHook('onRequest', (request, reply, done) => {
    running.add(request);
    const res = reply.raw as ServerResponse & { [REPLY]?: FastifyReply };
    res[REPLY] = reply;
    res.on('close', onClose);
    done();
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    release(request);
    done(null, payload);
  });
  return {
    async drained(timeoutMs) {
      if (running.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        onIdle = resolve;
        timer = setTimeout(resolve, timeoutMs);
      });
      clearTimeout(timer);
      onIdle = undefined;
    },
  };
}
