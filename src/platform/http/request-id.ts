// The request id: on every log line of a request (pino's `reqId`) and answered as X-Request-Id, so that an operator
// finds a caller's request in the logs. A trusted proxy's id is kept, so that one id follows the request through.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

/** An id as proxies make them (UUIDs, hex, base64, dotted or colon-separated traces): short, printable, no spaces. */
const SANE_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * Fastify's `genReqId`: the caller's X-Request-Id when it came through a trusted proxy (`server.trustProxy`) and is
 * a sane token, otherwise a new UUID. From anyone else it is ignored: a client could fill the logs with forged ids.
 */
export function requestIdGenerator(trustProxy: boolean): (req: IncomingMessage) => string {
  return (req) => {
    const given = trustProxy ? req.headers[REQUEST_ID_HEADER] : undefined;
    return typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID();
  };
}

/** Answers X-Request-Id on every response, also those written on the raw response (live streams, the flow proxy). */
export function answerRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader(REQUEST_ID_HEADER, request.id);
    done();
  });
}
