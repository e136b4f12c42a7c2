// Requests that Node's HTTP parser refuses before any route runs (framing, header size, timeouts), and what HTTP/1.1
// itself forbids that Node lets through (no Host, two Hosts, an expectation we cannot meet, more header lines than the
// limit): answered with the same error object as everything else (decisions.md section 4).
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { AppError } from '../errors/app-error.js';
import { ERRORS } from '../errors/error-catalogue.js';

function transportError(code: string | undefined): AppError {
  if (code === 'HPE_HEADER_OVERFLOW') return ERRORS.headersTooLarge();
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return ERRORS.requestTimeout();
  return ERRORS.badRequest('Malformed HTTP request');
}

/** The error object as a whole HTTP/1.1 response that closes the connection, for a socket no route owns. */
export function rawErrorResponse(error: AppError): string {
  const body = JSON.stringify({ error: error.body });
  let head = `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\n`;
  for (const [name, value] of Object.entries(error.headers)) head += `${name}: ${value}\r\n`;
  return `${head}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Fastify's `clientErrorHandler`: writes the error object on the raw socket and closes it, as Node would. */
export function transportErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const error = transportError(err.code);
  this.log.debug({ code: err.code }, 'malformed request refused');
  // A response already begun on this connection (a timeout while its answer streams) cannot be followed by another.
  const answering = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !answering?.headersSent) socket.write(rawErrorResponse(error));
  socket.destroy();
}

export interface RequestHeadLimits {
  /** Header lines a request may carry (Node's own cut at maxHeadersCount is switched off: it drops the rest silently). */
  headerCount: number;
}

/**
 * HTTP/1.1 requires exactly one Host (RFC 9112, 3.2). Node checks its presence itself but answers with an empty 400,
 * and keeps the first of several; so the app's server is created with `requireHostHeader: false` and this hook
 * answers instead. It also counts the header lines against the limit (431).
 */
export function checkRequestHead(app: FastifyInstance, limits: RequestHeadLimits): void {
  app.server.maxHeadersCount = 0;
  // A callback hook, not an async one: it runs on every request, and costs no promise.
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw.rawHeaders;
    let hosts = 0;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i];
      if (name.length === 4 && name.toLowerCase() === 'host') hosts++;
    }
    let error: AppError | undefined;
    if (raw.length / 2 > limits.headerCount) {
      error = ERRORS.headersTooLarge(`The request carries more than ${limits.headerCount} header lines`, {
        maxHeaderCount: limits.headerCount,
      });
    } else if (hosts > 1) {
      error = ERRORS.badRequest('A request carries one Host header, not several');
    } else if (hosts === 0 && request.raw.httpVersion === '1.1') {
      error = ERRORS.badRequest('An HTTP/1.1 request needs a Host header');
    }
    if (error) {
      // The connection is not to be trusted with a next request either (as Node does).
      reply.header('connection', 'close');
      done(error);
      return;
    }
    done();
  });
  // Node answers an expectation other than 100-continue with an empty 417 unless someone listens.
  app.server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const error = ERRORS.expectationFailed();
    const body = JSON.stringify({ error: error.body });
    res.writeHead(error.statusCode, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    res.end(body);
  });
}

/**
 * A request answered before its body arrived (a 401 in front of a large upload, a 413 by Content-Length) closes its
 * connection once the answer is out: otherwise Node reads and drops the rest of the body, and a client that sends
 * it a byte at a time holds the socket for as long as it likes.
 */
export function closeUnreadBodies(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    // `complete` is false on a real connection until the whole request is in (light-my-request leaves it unset).
    if (request.raw.complete === false) reply.header('connection', 'close');
    done(null, payload);
  });
}
