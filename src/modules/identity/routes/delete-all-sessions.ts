import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { requireRoleOrRight } from '../../../platform/auth/auth-plugin.js';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { requestMeta } from '../../../platform/http/request-meta.js';
import type { IdentityContext } from '../identity.context.js';

export function deleteAllSessionsRoute(app: FastifyInstance, ctx: IdentityContext): void {
  app.delete(
    '/authentication/sessions/all',
    {
      preHandler: requireRoleOrRight('ADMIN', []),
      schema: {
        tags: ['authentication'],
        summary: "Ends every session of the caller's tenant (role ADMIN)",
        response: {
          200: answer(Type.Object({ deleted: Type.Integer() }), 'How many sessions ended', { deleted: 3 }),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request) => {
      return { deleted: await ctx.sessions.endAllSessions(request.principal, requestMeta(request)) };
    },
  );
}
