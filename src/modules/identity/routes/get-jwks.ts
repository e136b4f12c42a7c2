import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { IdentityContext } from '../identity.context.js';

export function getJwksRoute(app: FastifyInstance, ctx: IdentityContext): void {
  app.get(
    '/.well-known/jwks.json',
    {
      config: { public: true },
      schema: {
        tags: ['authentication'],
        summary: "The platform's public signing keys (JWKS), including retired keys whose tokens may still be valid",
        security: [],
        response: { 200: Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) }) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return ctx.signingKeys.jwks();
    },
  );
}
