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
