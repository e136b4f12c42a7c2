import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../../platform/http/schemas.js';
import type { FlowContext } from '../flow.context.js';

/**
 * `/cxf/svc-flow/flow/{instanceId}{targetPath}` for GET, POST, PUT and DELETE. Registered as the flow module's plugin,
 * in a scope of its own without body parsers: the request body is never read here, only streamed on, so no body limit
 * or JSON rule applies to it.
 */
export async function proxyRoutes(scope: FastifyInstance, ctx: FlowContext): Promise<void> {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
  const schema = {
    tags: ['flow'],
    summary: 'Proxies the call to a flow instance, as an opaque stream',
    description:
      "The wildcard after `/flow/` is `{instance}` (the configured instance's id), then the target path under the " +
      'instance URL, which may hold further `/` (`/flow/main/api/v1/orders` calls `<instance URL>/api/v1/orders`); or ' +
      'only `{instance}` with `?targetUrl=<path>`. Other query parameters are forwarded as received. Method, body and ' +
      "headers go on as they are; status, headers and body of the instance come back as they are, but for Set-Cookie of the platform's own cookies (dropped) and Domain attributes (removed). The platform's own refusals are the error object.",
    response: errorResponses(400, 401, 403, 404, 502, 504),
  };
  // The document shows the wildcard as two parameters; the body and the answer as any bytes (never parsed here).
  // Parameters and query are documented only, not validated by Fastify: the proxy judges the raw target itself
  // (parseFlowTarget, with its own 400 for each fault), and a validation pass on every call added nothing but cost.
  const querystring = Type.Object({
    targetUrl: Type.Optional(Type.String({ description: 'a path under the instance URL, instead of targetPath' })),
  });
  const opaque = { type: 'string', contentMediaType: 'application/octet-stream', format: 'binary' };
  const openapi = {
    wildcard: '{instance}/{path}',
    schema: {
      querystring,
      params: Type.Object({
        instance: Type.String({ description: 'Id of the flow instance (config flow.instances)', examples: ['main'] }),
        path: Type.String({
          description:
            'The target path under the instance URL; it may hold `/` (sent as is, not encoded): the rest of the URL',
          examples: ['echo'],
        }),
      }),
      response: {
        '2XX': {
          description: "The instance's answer, as it came (any status, headers and body, streamed)",
          content: { '*/*': { schema: opaque, example: '{"upstream":"answer"}' } },
        },
        default: {
          description:
            'An answer of the instance with another status (passed through as it came, not the error object)',
          content: { '*/*': { schema: opaque } },
        },
      },
    },
  };
  const body = {
    description: 'Any body, streamed to the instance as it is',
    content: { '*/*': { schema: { ...opaque, examples: ['{"order":42}'] } } },
  };
  for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
    const documented =
      method === 'POST' || method === 'PUT' ? { ...openapi, schema: { ...openapi.schema, body } } : openapi;
    scope.route({
      method,
      url: '/flow/*',
      schema,
      config: { openapi: documented, rawAnswer: true },
      // No promise: the proxy answers on the raw response, or sends its error through the reply itself.
      handler: (request, reply) => {
        ctx.proxy.forward(request, reply);
      },
    });
  }
}
