// The service's error object (`{"error": {messageKey, code, name, message, properties}}`, decisions.md section 4)
// as a typed Error, and the helper that turns an openapi-fetch answer into its data or that error.

/** The `error` member of the service's error object. */
export interface ErrorBody {
  messageKey: string;
  code: number;
  name: string;
  message: string;
  properties: Record<string, unknown>;
}

/** messageKey of answers that carried no error object (a proxy's HTML page, an empty 502...). */
export const UNEXPECTED_ANSWER = 'CLIENT_ERROR_UNEXPECTED_ANSWER';

/** A refused or failed call: the service's error object with the HTTP status. */
export class ApiError extends Error {
  /** HTTP status of the answer. */
  readonly status: number;
  /** Stable key of the error, e.g. `CORE_ERROR_CSRF_TOKEN_INVALID`: match on this, not on the message. */
  readonly messageKey: string;
  /** The error object's `code` (the HTTP status, or 540 for authentication failures). */
  readonly code: number;
  /** Details the service gives, e.g. `{ request: 1 }` for the failing call of a data management batch. */
  readonly properties: Record<string, unknown>;
  /** The HTTP answer, when there was one. */
  readonly response?: Response;

  constructor(status: number, body: ErrorBody, response?: Response) {
    super(body.message);
    // `name` is the service's error name (FORBIDDEN, AUTHENTICATION_UNAUTHORIZED...), as the error object has it.
    this.name = body.name;
    this.status = status;
    this.messageKey = body.messageKey;
    this.code = body.code;
    this.properties = body.properties ?? {};
    this.response = response;
  }

  /** The error of an answer: its error object when it has one, otherwise an UNEXPECTED_ANSWER error. */
  static from(body: unknown, response: Response): ApiError {
    const inner = (body as { error?: unknown } | undefined)?.error;
    if (isErrorBody(inner)) return new ApiError(response.status, inner, response);
    return new ApiError(
      response.status,
      {
        messageKey: UNEXPECTED_ANSWER,
        code: response.status,
        name: 'UNEXPECTED_ANSWER',
        message: `HTTP ${response.status} without the error object${typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : ''}`,
        properties: {},
      },
      response,
    );
  }
}

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.messageKey === 'string' && typeof v.message === 'string' && typeof v.name === 'string';
}

/** Whether `error` is an ApiError (of the messageKey, when given). */
export function isApiError(error: unknown, messageKey?: string): error is ApiError {
  return error instanceof ApiError && (messageKey === undefined || error.messageKey === messageKey);
}

/** The shape every openapi-fetch call answers. */
export interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of an openapi-fetch answer, or its error thrown as ApiError: the throwing style for callers that prefer
 * `try/catch` to `{ data, error }`. `const items = await unwrap(client.GET(path, init))`.
 */
export async function unwrap<T>(call: Promise<FetchResult<T>> | FetchResult<T>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw ApiError.from(error, response);
  return data as T;
}
