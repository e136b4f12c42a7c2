// The request id: on every log line of a request (pino's `reqId`) and answered as X-Request-Id, so that an operator
// finds a caller's request in the logs. A trusted proxy's id is kept, so that one id follows the request through.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';

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

/**
 * Answers X-Request-Id on every answer Fastify sends, as a reply header: written with the rest of the head in one go.
 * (On the raw response it would make Node merge every reply header into it one by one, on every request.) A route
 * that writes its own head on the raw response takes it over with `hijackWithRequestId`, or writes the id itself.
 */
export function answerRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}

/** Takes over the raw response (`reply.hijack()`: live streams), with the request id on it for the head to come. */
export function hijackWithRequestId(reply: FastifyReply): void {
  reply.hijack();
  reply.raw.setHeader(REQUEST_ID_HEADER, reply.request.id);
}
