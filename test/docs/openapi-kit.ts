// What the tests of the OpenAPI document share: its operations, the routes Fastify registered as the document names
// them, and an Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) that resolves the document's components.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { RouteRecord } from '../../src/app.js';

export const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

export interface Operation {
  method: string;
  path: string;
  op: any;
}

export function operationsOf(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths))
    for (const method of METHODS) if (item[method]) out.push({ method: method.toUpperCase(), path, op: item[method] });
  return out;
}

/** A route's path as the document writes it: `:name` as `{name}`, a trailing wildcard as its RouteDocument says. */
export function documentedPath(route: RouteRecord): string {
  const wildcard = route.config?.openapi?.wildcard;
  let path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  if (path.endsWith('*')) path = wildcard ? path.slice(0, -1) + wildcard : path.replace(/\*$/, '{*}');
  return path;
}

/** Every (method, path) the app answers, HEAD of a GET left aside (the document shows the GET). */
export function servedRoutes(
  routes: readonly RouteRecord[],
): Array<{ method: string; path: string; route: RouteRecord }> {
  const out: Array<{ method: string; path: string; route: RouteRecord }> = [];
  const gets = new Set<string>();
  for (const route of routes) for (const m of [route.method].flat()) if (m === 'GET') gets.add(route.url);
  for (const route of routes)
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' && gets.has(route.url)) continue;
      out.push({ method, path: documentedPath(route), route });
    }
  return out;
}

export interface DocumentValidator {
  /** Validates `value` against a schema of the document (which may `$ref` its components); errors as text or ''. */
  check(schema: unknown, value: unknown): string;
  /** The schema compiles (throws otherwise). */
  compile(schema: unknown): ValidateFunction;
}

/** An Ajv for the document's schemas: `#/components/schemas/X` resolves to the document's named schemas. */
export function documentValidator(doc: any): DocumentValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: true });
  addFormats.default(ajv);
  ajv.addFormat('binary', true);
  ajv.addFormat('byte', true);
  const rewrite = (schema: unknown) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"openapi-document#/components/schemas/'));
  ajv.addSchema({ $id: 'openapi-document', components: rewrite({ schemas: doc.components?.schemas ?? {} }) });
  const cache = new Map<string, ValidateFunction>();
  const compile = (schema: unknown) => {
    const key = JSON.stringify(schema);
    let fn = cache.get(key);
    if (!fn) {
      fn = ajv.compile(rewrite(schema) as object);
      cache.set(key, fn);
    }
    return fn;
  };
  return {
    compile,
    check(schema, value) {
      const fn = compile(schema);
      return fn(value) ? '' : ajv.errorsText(fn.errors, { separator: '; ' });
    },
  };
}

/** The response of a status as the document has it: the exact status, else `4XX`-style ranges, else `default`. */
export function documentedResponse(op: any, status: number): any {
  const r = op.responses ?? {};
  return r[String(status)] ?? r[`${String(status)[0]}XX`] ?? r.default;
}

/** The example of a parameter (its `example`, or the first of its schema's `examples`). */
export const parameterExample = (p: any): unknown => p.example ?? p.schema?.examples?.[0] ?? p.schema?.example;
