import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../platform/http/schemas.js';

export const PrincipalSchema = Type.Object({
  kind: Type.Union([Type.Literal('session'), Type.Literal('apiKey'), Type.Literal('token')]),
  tenant: Type.String(),
  loginName: Type.String(),
  organisations: Type.Array(Type.String()),
  roles: Type.Array(Type.String()),
  rights: Type.Array(Type.String()),
});

/** Who the credential of this call acts as; works with every kind of credential. */
export function getPrincipalRoute(app: FastifyInstance): void {
  app.get(
    '/authentication/principal',
    {
      schema: {
        tags: ['authentication'],
        summary: 'The principal the credential of this call acts as (session, API key or access token)',
        response: {
          200: answer(PrincipalSchema, 'The principal', {
            kind: 'apiKey',
            tenant: 'acme',
            loginName: 'integration',
            organisations: [],
            roles: ['ADMIN'],
            rights: [],
          }),
          ...errorResponses(401),
        },
      },
    },
    async (request) => request.principal,
  );
}
