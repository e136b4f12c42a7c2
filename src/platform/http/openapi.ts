// The OpenAPI 3.1 document at /docs/json: @fastify/swagger builds it from the route schemas; this file holds what the
// route schemas cannot say on their own (security by route kind, documented parts that differ from the validated
// ones, named schemas, the routes left out and why) and the options of the document (docs/api.md, "The OpenAPI document").
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { FastifyDynamicSwaggerOptions, SwaggerTransform } from '@fastify/swagger';
import { Type, type TSchema } from '@sinclair/typebox';
import { ErrorResponseSchema, errorDescription, errorExample } from './schemas.js';

/** How a route appears in the OpenAPI document, where its schema alone does not say it (route `config.openapi`). */
export interface RouteDocument {
  /**
   * Why the route is left out of the document. Only for routes that are no API call: the document and its UI, the
   * redirect of `/`, a console's static files. The test of the document lists every other route.
   */
  exclude?: string;
  /** The path template the route's trailing wildcard (`*`) is shown as, e.g. `{instance}/{path}`. */
  wildcard?: string;
  /**
   * Documented schema parts that replace the validated ones, where the route checks more itself (a protocol whose
   * calls its dispatcher checks with its own error answers; mandatory fields the spec answers 406 for, not 400).
   */
  schema?: Record<string, unknown>;
  /** Named schemas the documented parts refer to as `#/components/schemas/<name>` (see `componentRef`). */
  components?: Record<string, TSchema>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route in the OpenAPI document (src/platform/http/openapi.ts). */
    openapi?: RouteDocument;
  }
}

/** Route options that leave a route out of the document, with the reason (no API call: see RouteDocument.exclude). */
export function outOfDocument(reason: string): { schema: { hide: true }; config: { openapi: RouteDocument } } {
  return { schema: { hide: true }, config: { openapi: { exclude: reason } } };
}

/** Registers `plugin` so that every route it adds is left out of the document with `reason` (the UI's own routes). */
export async function registerOutOfDocument(
  app: FastifyInstance,
  reason: string,
  register: (scope: FastifyInstance) => Promise<void>,
): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route: RouteOptions) => {
      route.config = Object.assign(route.config ?? {}, { openapi: { ...route.config?.openapi, exclude: reason } });
      route.schema = Object.assign(route.schema ?? {}, { hide: true });
    });
    await register(scope);
  });
}

/** A reference to a named schema of the document (`components`, as a route's RouteDocument names it). */
export const componentRef = (name: string) => Type.Unsafe({ $ref: `#/components/schemas/${name}` });

/** One event of a Server-Sent Events stream: its name (the `event:` field) and the schema of its `data:` JSON. */
export interface StreamEvent {
  description: string;
  /** Name of the data's schema in `components.schemas`. */
  data: string;
  /** Whether the event carries an `id:` to resume from (Last-Event-ID). */
  resumable?: boolean;
}

/**
 * A Server-Sent Events stream for the document: the 200 answer as `text/event-stream`, with its events listed in the
 * description and in the operation's `x-events` (event name -> `$ref` of its data schema). Spread the result into the
 * route's `config.openapi.schema` and put the data schemas in `config.openapi.components`.
 */
export function eventStreamDocument(summary: string, events: Record<string, StreamEvent>) {
  const lines = Object.entries(events).map(
    ([name, e]) =>
      `- \`${name}\`${e.resumable ? ' (with an id)' : ''}: ${e.description}; data: \`#/components/schemas/${e.data}\``,
  );
  const response = {
    description: `${summary}\n\nEvents (\`event:\` name, then \`data:\` JSON):\n${lines.join('\n')}\n\nComment lines (\`: heartbeat\`) keep the connection open.`,
    content: {
      'text/event-stream': {
        schema: { type: 'string', description: 'A stream of events: `id:`, `event:` and `data:` lines' },
        example: Object.entries(events)
          .map(([name]) => `event: ${name}\ndata: {...}\n`)
          .join('\n'),
      },
    },
  };
  return {
    'x-events': Object.fromEntries(
      Object.entries(events).map(([name, e]) => [name, { $ref: `#/components/schemas/${e.data}` }]),
    ),
    response: { 200: response },
  };
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The platform's credentials for a route of its credential scope: API key, bearer token or session (+ CSRF on writes). */
function platformSecurity(method: string): Array<Record<string, string[]>> {
  return [{ apiKey: [] }, { bearer: [] }, UNSAFE.has(method) ? { session: [], csrf: [] } : { session: [] }];
}

const plain = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema));

/**
 * @fastify/swagger's `transform`: applies the route's RouteDocument, the platform's security where a route names
 * none, and a described 500 (every route can fail unexpectedly).
 */
export const transformRoute: SwaggerTransform = (input) => {
  const { url, route } = input;
  const schema = input.schema as Record<string, any> | undefined;
  const openapiObject = (input as { openapiObject?: { components?: { schemas?: Record<string, unknown> } } })
    .openapiObject ?? { components: {} };
  const doc = route.config?.openapi;
  if (doc?.exclude) return { schema: { ...schema, hide: true }, url };
  const components = (openapiObject.components ??= {});
  const schemas = (components.schemas ??= {});
  for (const [name, s] of Object.entries(doc?.components ?? {})) schemas[name] = plain(s);
  const out: Record<string, any> = { ...schema, ...(doc?.schema ?? {}) };
  out.response = { ...(schema?.response ?? {}), ...((doc?.schema?.response as object) ?? {}) };
  if (!out.response[500] && !out.response['5xx']) out.response[500] = errorAnswer(500);
  const method = [route.method].flat()[0];
  if (out.security === undefined) out.security = platformSecurity(method);
  return { schema: out, url: doc?.wildcard ? url.replace(/\*$/, doc.wildcard) : url };
};

/** The error object with the description of its status. */
export const errorAnswer = (status: number) => ({
  ...ErrorResponseSchema,
  description: errorDescription(status),
  examples: [errorExample(status)],
});

/** @fastify/swagger's options: OpenAPI 3.1 with every credential the service takes. */
export function openapiOptions(sessionCookie: string, version: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Application platform service',
        version,
        description:
          'The platform (`/cxf/...`: identity, storage, forms, notifications, flow proxy) and the process engine ' +
          "(`/engine/...`). Errors answer the error object `{error: {messageKey, code, name, message, properties}}`. Platform routes take an API key (`X-APIKey`), a bearer token (`Authorization: Bearer`, from `POST /cxf/svc-core/authentication/token` or the configured OIDC issuer) or the session cookie with `X-Csrf-Token` on writes; the engine's routes take its own users (HTTP Basic, or a process user's token).",
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey' as const, in: 'header', name: 'X-APIKey', description: "A tenant's API key" },
          bearer: {
            type: 'http' as const,
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'An access token of POST /cxf/svc-core/authentication/token or of the OIDC issuer',
          },
          session: {
            type: 'apiKey' as const,
            in: 'cookie',
            name: sessionCookie,
            description: 'The session cookie of POST /cxf/svc-core/authentication',
          },
          csrf: {
            type: 'apiKey' as const,
            in: 'header',
            name: 'X-Csrf-Token',
            description: "With the session cookie on writes: the token of the login answer's principals",
          },
          basic: {
            type: 'http' as const,
            scheme: 'basic',
            description: "An engine user (the engine's users of the config)",
          },
          processUserToken: {
            type: 'apiKey' as const,
            in: 'header',
            name: 'X-AUTH-TOKEN',
            description: '`Bearer <token>` of a process user, checked by the Process User Server',
          },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }, { session: [], csrf: [] }],
      tags: [
        { name: 'operations', description: 'Health of the service' },
        { name: 'authentication', description: 'Sessions, tokens, principals and the audit log' },
        { name: 'storage', description: 'Stores of JSON items with read and write restrictions' },
        { name: 'forms', description: 'Versioned form definitions' },
        { name: 'notifications', description: 'Notifications and their live stream' },
        { name: 'flow', description: 'The proxy to flow instances' },
        { name: 'engine', description: "The process engine's REST and data management APIs" },
      ],
    },
    transform: transformRoute,
  };
}
