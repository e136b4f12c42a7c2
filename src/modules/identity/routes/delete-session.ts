import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { requestMeta } from '../../../platform/http/request-meta.js';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import type { IdentityContext } from '../identity.context.js';

export function deleteSessionRoute(app: FastifyInstance, ctx: IdentityContext): void {
  app.delete(
    '/authentication',
    {
      config: { public: true },
      schema: {
        tags: ['authentication'],
        summary:
          'Log out (X-Csrf-Token required while the session lives): the session ends on every instance at once; idempotent',
        description: 'Needs no credential: without a live session cookie it only clears the cookie.',
        security: [{ session: [], csrf: [] }, {}],
        response: {
          200: answer(Type.Object({ loggedOut: Type.Boolean() }), 'Logged out; the cookie is cleared', {
            loggedOut: true,
          }),
          ...errorResponses(403),
        },
      },
    },
    async (request, reply) => {
      const csrf = request.headers['x-csrf-token'];
      await ctx.sessions.logout(
        request.cookies[ctx.cookieName],
        typeof csrf === 'string' ? csrf : undefined,
        requestMeta(request),
      );
      reply.clearCookie(ctx.cookieName, { path: '/' });
      return { loggedOut: true };
    },
  );
}
