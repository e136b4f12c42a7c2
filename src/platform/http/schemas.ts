import { Type } from '@sinclair/typebox';

/** The error object of decisions.md section 4, for the OpenAPI document. */
export const ErrorResponseSchema = Type.Object(
  {
    error: Type.Object({
      messageKey: Type.String(),
      code: Type.Integer(),
      name: Type.String(),
      message: Type.String(),
      properties: Type.Record(Type.String(), Type.Unknown()),
    }),
  },
  { description: 'The error object' },
);

/** Response map entries for the usual error statuses of an authenticated route. */
export function errorResponses(...statuses: number[]) {
  const out: Record<number, typeof ErrorResponseSchema> = {};
  for (const s of statuses) out[s] = ErrorResponseSchema;
  return out;
}
