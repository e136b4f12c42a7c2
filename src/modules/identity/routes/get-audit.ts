import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { requireRoleOrRight } from '../../../platform/auth/auth-plugin.js';
import { answer, errorResponses, QueryInteger } from '../../../platform/http/schemas.js';
import type { IdentityContext } from '../identity.context.js';

const Query = Type.Object({
  start: QueryInteger({ default: 0 }),
  limit: QueryInteger({ minimum: 1, maximum: 1000, default: 100 }),
  from: Type.Optional(
    Type.String({ format: 'date-time', description: 'Only records at or after this time (ISO 8601 date-time)' }),
  ),
  to: Type.Optional(
    Type.String({ format: 'date-time', description: 'Only records before this time (ISO 8601 date-time)' }),
  ),
  actor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 256, description: 'Only records of this actor (login or key name)' }),
  ),
  action: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'Only records of this action (`login`, `logout`, ...)' }),
  ),
  outcome: Type.Optional(
    Type.Union([Type.Literal('success'), Type.Literal('failure')], { description: 'Only records of this outcome' }),
  ),
});

export function getAuditRoute(app: FastifyInstance, ctx: IdentityContext): void {
  app.get<{ Querystring: Static<typeof Query> }>(
    '/audit',
    {
      preHandler: requireRoleOrRight('ADMIN', []),
      schema: {
        tags: ['authentication'],
        summary: "Audit records of the caller's tenant, newest first (role ADMIN)",
        description:
          'Pages of the audit log, newest first, optionally narrowed to a time range (`from` inclusive, `to` ' +
          'exclusive) and to one actor, action and outcome (exact matches). `total` counts the matching records.',
        querystring: Query,
        response: {
          200: answer(
            Type.Object({
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
            'A page of the records, newest first, and the total',
            {
              total: 1,
              items: [
                {
                  id: '1',
                  at: '2026-11-27T07:04:34.357Z',
                  actor: 'alice',
                  action: 'login',
                  outcome: 'success',
                  remoteAddress: '203.0.113.7',
                  userAgent: 'curl/8.5.0',
                  detail: {},
                },
              ],
            },
          ),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => {
      const { start, limit, from, to, actor, action, outcome } = request.query;
      return ctx.audit.list(request.principal.tenantId, start, limit, {
        from: from === undefined ? undefined : Date.parse(from),
        to: to === undefined ? undefined : Date.parse(to),
        actor,
        action,
        outcome,
      });
    },
  );
}
