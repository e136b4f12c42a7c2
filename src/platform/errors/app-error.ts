/** The one error type of the service. Rendered as the error object of decisions.md section 4. */
export interface ErrorBody {
  messageKey: string;
  code: number;
  name: string;
  message: string;
  properties: Record<string, unknown>;
}

export class AppError extends Error {
  readonly statusCode: number;
  readonly body: ErrorBody;
  readonly headers: Record<string, string>;

  constructor(
    statusCode: number,
    body: Omit<ErrorBody, 'code' | 'properties'> & { code?: number; properties?: Record<string, unknown> },
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(body.message, { cause: options.cause });
    this.statusCode = statusCode;
    this.body = { ...body, code: body.code ?? statusCode, properties: body.properties ?? {} };
    this.headers = options.headers ?? {};
  }
}

export const isAppError = (err: unknown): err is AppError => err instanceof AppError;
