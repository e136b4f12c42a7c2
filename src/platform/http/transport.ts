// Requests that Node's HTTP parser refuses before any route runs (framing, header size, timeouts), and HTTP/1.1
// requests without Host: answered with the same error object as everything else (decisions.md section 4).
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { ERRORS } from '../errors/error-catalogue.js';

function transportError(code: string | undefined): AppError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new AppError(431, {
      messageKey: 'CORE_ERROR_HEADERS_TOO_LARGE',
      name: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
      message: 'The request headers exceed the size the server accepts',
    });
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new AppError(408, { messageKey: 'CORE_ERROR_REQUEST_TIMEOUT', name: 'REQUEST_TIMEOUT', message: 'The request was not received in time' });
  }
  return ERRORS.badRequest('Malformed HTTP request');
}

/** Fastify's `clientErrorHandler`: writes the error object on the raw socket and closes it, as Node would. */
export function transportErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const error = transportError(err.code);
  this.log.debug({ code: err.code }, 'malformed request refused');
  if (socket.writable) {
    const body = JSON.stringify({ error: error.body });
    socket.write(
      `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * HTTP/1.1 requires Host (RFC 9112, 3.2). Node checks it itself but answers with an empty 400, so the app's
 * server is created with `requireHostHeader: false` and this hook answers instead.
 */
export function requireHostHeader(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request, and costs no promise.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      // The connection is not to be trusted with a next request either (as Node does).
      reply.header('connection', 'close');
      done(ERRORS.badRequest('An HTTP/1.1 request needs a Host header'));
      return;
    }
    done();
  });
}
