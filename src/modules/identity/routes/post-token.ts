import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { requestMeta } from '../../../platform/http/request-meta.js';
import type { IdentityContext } from '../identity.context.js';

export function postTokenRoute(app: FastifyInstance, ctx: IdentityContext): void {
  app.post(
    '/authentication/token',
    {
      schema: {
        tags: ['authentication'],
        summary: 'Mints a short-lived access token (JWT) for the session or API key of this call',
        response: {
          200: answer(
            Type.Object({
              access_token: Type.String(),
              token_type: Type.Literal('Bearer'),
              expires_in: Type.Integer({ description: 'Seconds' }),
            }),
            'An access token for Authorization: Bearer',
            {
              access_token: 'eyJhbGciOiJFUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl',
              token_type: 'Bearer',
              expires_in: 900,
            },
          ),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request) => ctx.tokens.mintFor(request.principal, requestMeta(request)),
  );
}
