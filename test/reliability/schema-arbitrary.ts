// Values valid for a JSON schema (the subset the routes' TypeBox schemas use in the OpenAPI document), as a
// fast-check arbitrary. Sizes are kept small: the fuzzer wants many shapes, not big ones.
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  nullable?: boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
}

const MAX_DEPTH = 4;

export function arbitraryFromSchema(schema: JsonSchema = {}, depth = 0): fc.Arbitrary<unknown> {
  const base = nonNull(schema, depth);
  return schema.nullable ? fc.option(base, { nil: null, freq: 5 }) : base;
}

function nonNull(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => arbitraryFromSchema(s, depth)));
  // The schema's own keywords and its allOf's together (a QueryInteger's bounds sit beside its allOf).
  if (schema.allOf?.length)
    return arbitraryFromSchema(Object.assign({}, schema, ...schema.allOf, { allOf: undefined }), depth);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (depth > MAX_DEPTH) return fc.constant(type === 'array' ? [] : type === 'object' ? {} : null);
  switch (type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1000);
      const max =
        schema.maximum ??
        (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : Math.max(min, 0) + 1000);
      return fc.integer({ min, max: Math.max(min, max) });
    }
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const minLength = schema.minItems ?? 0;
      return fc.array(arbitraryFromSchema(schema.items ?? {}, depth + 1), {
        minLength,
        maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)),
      });
    }
    case 'object': {
      const props = schema.properties ?? {};
      const record = fc.record(
        Object.fromEntries(Object.entries(props).map(([k, s]) => [k, arbitraryFromSchema(s, depth + 1)])),
        { requiredKeys: (schema.required ?? []).filter((k) => k in props) },
      );
      return schema.additionalProperties === false
        ? record
        : fc
            .tuple(
              record,
              fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
            )
            .map(([r, extra]) => ({ ...extra, ...r }));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 24, 24));
  if (schema.format === 'date-time')
    return fc.date({ min: new Date(0), max: new Date(4102444800000), noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.pattern) {
    let re: RegExp;
    try {
      re = new RegExp(schema.pattern);
    } catch {
      return fc.string({ minLength, maxLength });
    }
    const fits = (s: string) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity);
    try {
      return fc.stringMatching(re).filter(fits);
    } catch {
      // fast-check cannot build from every regex (lookaheads): generate plain ids and keep those that match.
      return fc.stringMatching(/^[A-Za-z0-9._-]{1,24}$/).filter((s) => fits(s) && re.test(s));
    }
  }
  return fc.string({ minLength, maxLength });
}
