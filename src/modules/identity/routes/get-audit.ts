import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { requireRoleOrRight } from '../../../platform/auth/auth-plugin.js';
import { errorResponses, QueryInteger } from '../../../platform/http/schemas.js';
import type { IdentityContext } from '../identity.context.js';

const Query = Type.Object({
  start: QueryInteger({ default: 0 }),
  limit: QueryInteger({ minimum: 1, maximum: 1000, default: 100 }),
});

export function getAuditRoute(app: FastifyInstance, ctx: IdentityContext): void {
  app.get<{ Querystring: Static<typeof Query> }>(
    '/audit',
    {
      preHandler: requireRoleOrRight('ADMIN', []),
      schema: {
        tags: ['authentication'],
        summary: "Audit records of the caller's tenant, newest first (role ADMIN)",
        querystring: Query,
        response: {
          200: Type.Object({
            total: Type.Integer(),
            items: Type.Array(
              Type.Object({
                id: Type.String(),
                at: Type.String(),
                actor: Type.String(),
                action: Type.String(),
                outcome: Type.String(),
                remoteAddress: Type.String(),
                userAgent: Type.String(),
                detail: Type.Record(Type.String(), Type.Unknown()),
              }),
            ),
          }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => ctx.audit.list(request.principal.tenantId, request.query.start, request.query.limit),
  );
}
