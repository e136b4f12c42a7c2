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
    summary:
      "Proxies the call to the flow instance (targetPath after the instance id, or ?targetUrl=); status, headers and body of the instance come back as they are, but for Set-Cookie of the platform's own cookies (dropped) and Domain attributes (removed)",
    params: Type.Object({ '*': Type.String({ description: '{instanceId}{targetPath}' }) }),
    querystring: Type.Object({
      targetUrl: Type.Optional(Type.String({ description: 'a path under the instance URL, instead of targetPath' })),
    }),
    response: errorResponses(400, 401, 403, 404, 502, 504),
  };
  for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
    scope.route({
      method,
      url: '/flow/*',
      schema,
      config: { rawAnswer: true },
      handler: (request, reply) => ctx.proxy.forward(request, reply),
    });
  }
}
