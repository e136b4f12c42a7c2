// Request validation with two Ajv instances: one that reads text as the schema's types (query strings, path
// parameters and headers are text: `?limit=5` is the number 5), one that takes bodies as typed (decisions.md section 4:
// `"5"` where the schema says number, or `"bob"` where it says array, is 400, never converted).
import { AjvCompiler, type BuildCompilerFromPool } from '@fastify/ajv-compiler';

/** The Ajv options every part shares; `coerceTypes` is set per part. */
export const AJV_OPTIONS = { allErrors: false, useDefaults: true, removeAdditional: false } as const;

type ValidatorBuilder = BuildCompilerFromPool;
type CompilerOptions = NonNullable<Parameters<ValidatorBuilder>[1]> & { mode?: never };

/** Fastify's `schemaController.compilersFactory.buildValidator`: bodies without coercion, the other parts with it. */
export function typedBodyValidators(): ValidatorBuilder {
  const pool = AjvCompiler();
  return ((externalSchemas, options = {}) => {
    const base = options as CompilerOptions;
    const withCoercion = (coerceTypes: false | 'array') =>
      pool(externalSchemas, { ...base, customOptions: { ...AJV_OPTIONS, ...base.customOptions, coerceTypes } });
    const typed = withCoercion(false);
    const text = withCoercion('array');
    return (route: { httpPart?: string }) => (route.httpPart === 'body' ? typed : text)(route as never);
  }) as ValidatorBuilder;
}
