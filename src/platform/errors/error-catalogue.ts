import { AppError } from './app-error.js';

/** The spec's own code for authentication failures (interface-spec, Authentication 5). */
export const AUTH_CODE = 540;

export interface FieldError {
  path: string;
  message: string;
}

/** Errors shared by every module. Modules add their own factories in `<module>.errors.ts`. */
export const ERRORS = {
  authenticationFailed: () =>
    new AppError(401, {
      messageKey: 'CORE_ERROR_IDENTITY_PROVIDER_AUTHENTICATION_FAILED',
      code: AUTH_CODE,
      name: 'AUTHENTICATION_UNAUTHORIZED',
      message: 'Authentication failed',
    }),
  csrfTokenInvalid: () =>
    new AppError(403, {
      messageKey: 'CORE_ERROR_CSRF_TOKEN_INVALID',
      name: 'FORBIDDEN',
      message: 'Missing or wrong X-Csrf-Token header',
    }),
  forbidden: (message = 'Access denied', properties: Record<string, unknown> = {}) =>
    new AppError(403, { messageKey: 'CORE_ERROR_FORBIDDEN', name: 'FORBIDDEN', message, properties }),
  notFound: (message = 'Not found', properties: Record<string, unknown> = {}) =>
    new AppError(404, { messageKey: 'CORE_ERROR_NOT_FOUND', name: 'NOT_FOUND', message, properties }),
  routeNotFound: (method: string, url: string) =>
    new AppError(404, {
      messageKey: 'CORE_ERROR_ROUTE_NOT_FOUND',
      name: 'NOT_FOUND',
      message: `No route ${method} ${url.split('?')[0].slice(0, 200)}`,
    }),
  validation: (errors: FieldError[], message?: string) =>
    new AppError(400, {
      messageKey: 'CORE_ERROR_VALIDATION_FAILED',
      name: 'VALIDATION_FAILED',
      message: message ?? (errors.length ? `${errors[0].path || 'body'}: ${errors[0].message}` : 'Invalid request'),
      properties: { errors },
    }),
  badRequest: (message: string, properties: Record<string, unknown> = {}) =>
    new AppError(400, { messageKey: 'CORE_ERROR_BAD_REQUEST', name: 'BAD_REQUEST', message, properties }),
  invalidJson: (status: 400 | 500, detail: string) =>
    new AppError(status, {
      messageKey: 'CORE_ERROR_INVALID_JSON',
      name: 'INVALID_JSON',
      message: `The JSON could not be parsed: ${detail}`,
    }),
  unsupportedMediaType: (expected?: string) =>
    new AppError(415, {
      messageKey: 'CORE_ERROR_UNSUPPORTED_MEDIA_TYPE',
      name: 'UNSUPPORTED_MEDIA_TYPE',
      message: expected ? `Content-Type must be ${expected}` : 'Unsupported Content-Type',
      properties: expected ? { expected } : {},
    }),
  payloadTooLarge: (limitBytes: number) =>
    new AppError(413, {
      messageKey: 'CORE_ERROR_PAYLOAD_TOO_LARGE',
      name: 'PAYLOAD_TOO_LARGE',
      message: `The request body exceeds ${limitBytes} bytes`,
      properties: { limitBytes },
    }),
  conflict: (message: string, properties: Record<string, unknown> = {}) =>
    new AppError(409, { messageKey: 'CORE_ERROR_CONFLICT', name: 'CONFLICT', message, properties }),
  tooManyRequests: (retryAfterSeconds: number) =>
    new AppError(
      429,
      {
        messageKey: 'CORE_ERROR_TOO_MANY_REQUESTS',
        name: 'TOO_MANY_REQUESTS',
        message: 'Too many failed attempts; try again later',
        properties: { retryAfterSeconds },
      },
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    ),
  tooManyConnections: (limit: number, retryAfterSeconds: number) =>
    new AppError(
      429,
      {
        messageKey: 'CORE_ERROR_TOO_MANY_CONNECTIONS',
        name: 'TOO_MANY_REQUESTS',
        message: `More than ${limit} open connections from this address; close one or try again later`,
        properties: { limit, retryAfterSeconds },
      },
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    ),
  tooManyStreams: (limit: number, retryAfterSeconds: number) =>
    new AppError(
      429,
      {
        messageKey: 'CORE_ERROR_TOO_MANY_STREAMS',
        name: 'TOO_MANY_REQUESTS',
        message: `More than ${limit} open live streams for this caller or address; close one or try again later`,
        properties: { limit, retryAfterSeconds },
      },
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    ),
  headersTooLarge: (
    message = 'The request headers exceed the size the server accepts',
    properties: Record<string, unknown> = {},
  ) =>
    new AppError(431, {
      messageKey: 'CORE_ERROR_HEADERS_TOO_LARGE',
      name: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
      message,
      properties,
    }),
  requestTimeout: () =>
    new AppError(408, {
      messageKey: 'CORE_ERROR_REQUEST_TIMEOUT',
      name: 'REQUEST_TIMEOUT',
      message: 'The request was not received in time',
    }),
  expectationFailed: () =>
    new AppError(417, {
      messageKey: 'CORE_ERROR_EXPECTATION_FAILED',
      name: 'EXPECTATION_FAILED',
      message: 'The only expectation the server meets is Expect: 100-continue',
    }),
  serviceUnavailable: (message = 'Maintenance mode is active') =>
    new AppError(503, { messageKey: 'CORE_ERROR_SERVICE_UNAVAILABLE', name: 'SERVICE_UNAVAILABLE', message }),
  /** GET /readyz: what keeps this instance from taking traffic, one sentence each, and every check's state. */
  notReady: (problems: string[], checks: Record<string, string>) =>
    new AppError(503, {
      messageKey: 'CORE_ERROR_NOT_READY',
      name: 'SERVICE_UNAVAILABLE',
      message: `Not ready: ${problems.join('; ')}`,
      properties: { checks },
    }),
  internal: (cause?: unknown) =>
    new AppError(
      500,
      { messageKey: 'CORE_ERROR_INTERNAL', name: 'INTERNAL_ERROR', message: 'An unexpected error occurred' },
      { cause },
    ),
} as const;
