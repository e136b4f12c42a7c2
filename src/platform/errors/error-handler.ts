import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from './app-error.js';
import { ERRORS, type FieldError } from './error-catalogue.js';
import { UniqueViolation, WriteConflict, type DbError } from '../db/db-errors.js';

/** Translates a driver error into what it means (the dialect's toDomainError). */
export type DomainErrorOf = (err: unknown) => DbError | undefined;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Status for a body that is not valid JSON; the storage API answers 500 as the spec says. */
    invalidJsonStatus?: 400 | 500;
  }
}

interface AjvLikeError {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** `/tenants/0/name` -> `tenants[0].name`, prefixed with the part of the request that failed. */
export function jsonPointerToPath(pointer: string, prefix = ''): string {
  let path = prefix;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(part) ? `[${part}]` : path ? `.${part}` : part;
  }
  return path;
}

function validationErrors(err: FastifyError): FieldError[] {
  const context = (err as { validationContext?: string }).validationContext ?? 'body';
  return ((err.validation ?? []) as AjvLikeError[]).map((v) => {
    let path = jsonPointerToPath(v.instancePath ?? '', context);
    const missing = v.params?.missingProperty;
    if (typeof missing === 'string') path = `${path}.${missing}`;
    return { path, message: v.message ?? 'invalid' };
  });
}

/** Maps anything thrown to an AppError; unknown errors become a generic 500 (their cause is logged). */
export function toAppError(
  err: unknown,
  request: FastifyRequest,
  domainError: DomainErrorOf = () => undefined,
): AppError {
  if (isAppError(err)) return err;
  // A driver error no service turned into its own answer: still not a 500 when it means something to the caller.
  const meaning = domainError(err);
  if (meaning instanceof UniqueViolation) return ERRORS.conflict('The resource exists already');
  if (meaning instanceof WriteConflict) return ERRORS.conflict('A concurrent change won; try again');
  const fe = err as FastifyError;
  if (fe?.validation) return ERRORS.validation(validationErrors(fe));
  const code = fe?.code ?? '';
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return ERRORS.payloadTooLarge(request.routeOptions.bodyLimit ?? 0);
  }
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return ERRORS.unsupportedMediaType();
  if (
    code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    (fe instanceof SyntaxError && fe.statusCode === 400)
  ) {
    const status = request.routeOptions.config?.invalidJsonStatus ?? 400;
    return ERRORS.invalidJson(status, code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'empty body' : 'malformed JSON');
  }
  if (
    code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' ||
    code === 'FST_ERR_BAD_URL' ||
    code === 'FST_ERR_ASYNC_CONSTRAINT'
  ) {
    return ERRORS.badRequest('Malformed request');
  }
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    // Fastify's own 4xx (e.g. bad header values): keep the status, not the internal text.
    return new AppError(fe.statusCode, {
      messageKey: 'CORE_ERROR_BAD_REQUEST',
      name: 'BAD_REQUEST',
      message: 'Malformed request',
    });
  }
  return ERRORS.internal(err);
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  return reply
    .code(error.statusCode)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send({ error: error.body });
}

/** Errors Fastify raises before routing (bad URL encoding, over-long path parameters): the same error object. */
export function frameworkErrorHandler(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const error =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new AppError(414, {
          messageKey: 'CORE_ERROR_URI_TOO_LONG',
          name: 'URI_TOO_LONG',
          message: 'A path parameter is too long',
        })
      : ERRORS.badRequest('Malformed request URL');
  void sendError(reply, error);
}

/** The one place where errors are rendered. */
export function installErrorHandler(app: FastifyInstance, domainError?: DomainErrorOf): void {
  app.setErrorHandler((err, request, reply) => {
    const appError = toAppError(err, request, domainError);
    // 503 is a state the service answers on purpose (maintenance, not ready), not a failure: no error line per call.
    if (appError.statusCode >= 500 && appError.statusCode !== 503)
      request.log.error({ err: appError.cause ?? err }, 'request failed');
    else request.log.debug({ err: appError.body }, 'request rejected');
    return sendError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, ERRORS.routeNotFound(request.method, request.url)));
}
