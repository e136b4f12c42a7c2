import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { requestMeta } from '../../../platform/http/request-meta.js';
import type { IdentityContext } from '../identity.context.js';

export function deleteSessionRoute(app: FastifyInstance, ctx: IdentityContext): void {
  app.delete(
    '/cxf/svc-core/authentication',
    {
      config: { public: true },
      schema: {
        tags: ['authentication'],
        summary: 'Log out: the session ends on every instance at once; idempotent',
        response: { 200: Type.Object({ loggedOut: Type.Boolean() }) },
      },
    },
    async (request, reply) => {
      await ctx.sessions.logout(request.cookies[ctx.cookieName], requestMeta(request));
      reply.clearCookie(ctx.cookieName, { path: '/' });
      return { loggedOut: true };
    },
  );
}
