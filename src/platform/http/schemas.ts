import { Type, type TSchema } from '@sinclair/typebox';

/** The error object of decisions.md section 4, for the OpenAPI document. */
export const ErrorResponseSchema = Type.Object(
  {
    error: Type.Object(
      {
        messageKey: Type.String({ description: 'Stable key of the error, e.g. CORE_ERROR_VALIDATION_FAILED' }),
        code: Type.Integer({ description: "The HTTP status, or the spec's own code (540: authentication failed)" }),
        name: Type.String({ description: 'Short name, e.g. VALIDATION_FAILED' }),
        message: Type.String({ description: 'For people; never parse it' }),
        properties: Type.Record(Type.String(), Type.Unknown(), {
          description: 'Details, e.g. errors: [{path, message}] for validation',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { description: 'The error object', additionalProperties: false },
);

/** An example of the error object per status (the document's response examples). */
const ERROR_EXAMPLES: Record<number, [messageKey: string, name: string, message: string, code?: number]> = {
  400: ['CORE_ERROR_VALIDATION_FAILED', 'VALIDATION_FAILED', 'querystring.limit: must be integer'],
  401: [
    'CORE_ERROR_IDENTITY_PROVIDER_AUTHENTICATION_FAILED',
    'AUTHENTICATION_UNAUTHORIZED',
    'Authentication failed',
    540,
  ],
  403: ['CORE_ERROR_FORBIDDEN', 'FORBIDDEN', 'Access denied'],
  404: ['CORE_ERROR_NOT_FOUND', 'NOT_FOUND', 'Not found'],
  409: ['CORE_ERROR_CONFLICT', 'CONFLICT', 'The resource exists already'],
  413: ['CORE_ERROR_PAYLOAD_TOO_LARGE', 'PAYLOAD_TOO_LARGE', 'The body is larger than 1048576 bytes'],
  415: ['CORE_ERROR_UNSUPPORTED_MEDIA_TYPE', 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type'],
  429: ['CORE_ERROR_TOO_MANY_REQUESTS', 'TOO_MANY_REQUESTS', 'Too many attempts; try again later'],
  500: ['CORE_ERROR_INTERNAL', 'INTERNAL_SERVER_ERROR', 'Internal error'],
};

/** The error object of a status with its example. */
export function errorExample(status: number) {
  const [messageKey, name, message, code] = ERROR_EXAMPLES[status] ?? ['CORE_ERROR', 'ERROR', 'The request failed'];
  return { error: { messageKey, code: code ?? status, name, message, properties: {} } };
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is invalid (parameters, query or body); nothing changed',
  401: 'No valid credential (code 540)',
  403: 'The credential does not grant this, or the CSRF token is missing on a session write',
  404: 'Not found',
  406: 'A mandatory field is missing',
  409: 'Conflict with the current state; nothing changed',
  413: 'The body is larger than the limit',
  414: 'A path parameter is too long',
  415: 'The Content-Type is not the one the route takes',
  429: 'Too many attempts or streams; Retry-After says when to try again',
  500: 'An unexpected failure (logged with its cause); nothing changed',
  502: 'The upstream system failed or could not be reached',
  503: 'Unavailable (maintenance, or an upstream that is down)',
  504: 'The upstream system did not answer in time',
};

/** What an error status means, for the document. */
export const errorDescription = (status: number): string => ERROR_DESCRIPTIONS[status] ?? 'The error object';

/** Response map entries for the error statuses of a route: the error object, described by status. */
export function errorResponses(...statuses: number[]) {
  const out: Record<number, typeof ErrorResponseSchema> = {};
  for (const s of statuses)
    out[s] = { ...ErrorResponseSchema, description: errorDescription(s), examples: [errorExample(s)] };
  return out;
}

/** The largest start, limit or size any endpoint takes: a signed 32-bit integer, which both engines' OFFSET and LIMIT accept. */
export const MAX_QUERY_INTEGER = 2_147_483_647;

/**
 * A whole-number query parameter (start, limit, size): 0..2^31-1, or the narrower range of the API; anything else
 * (1.5, -1, 1e20, Infinity, NaN, '') is 400 with the error object. Every such parameter of every endpoint uses this.
 *
 * Query strings are text read as numbers (type coercion), and there AJV has a gap: it coerces "Infinity", "-Infinity"
 * and "1e309" to non-finite numbers and then skips every number keyword (minimum, maximum, format) for a value that is
 * not finite, so they reached SQL (a 500). The `allOf` runs the type test again on the coerced value, which refuses
 * a non-finite number; the bounds refuse finite absurd ones ("1e20").
 */
export function QueryInteger(
  options: { minimum?: number; maximum?: number; default?: number; description?: string } = {},
) {
  const { minimum = 0, maximum = MAX_QUERY_INTEGER } = options;
  if (
    !(
      Number.isSafeInteger(minimum) &&
      Number.isSafeInteger(maximum) &&
      minimum >= 0 &&
      minimum <= maximum &&
      maximum <= MAX_QUERY_INTEGER
    )
  ) {
    throw new RangeError(`a query integer lies within 0..${MAX_QUERY_INTEGER}, not ${minimum}..${maximum}`);
  }
  return Type.Integer({ ...options, minimum, maximum, allOf: [{ type: 'integer' }] });
}

/**
 * A success answer for the OpenAPI document: the schema with the description of the answer and, where given, its
 * example (the tests replay every operation's example and validate real answers against the schema).
 */
export function answer<T extends TSchema>(schema: T, description: string, example?: unknown): T {
  return { ...schema, description, ...(example !== undefined ? { examples: [example] } : {}) };
}

/** The schema with an example (a request body's, a parameter's). */
export function withExample<T extends TSchema>(schema: T, example: unknown): T {
  return { ...schema, examples: [example] };
}
