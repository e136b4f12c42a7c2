import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { IdentityContext } from '../identity.context.js';
import { answer } from '../../../platform/http/schemas.js';

export function getJwksRoute(app: FastifyInstance, ctx: IdentityContext): void {
  app.get(
    '/.well-known/jwks.json',
    {
      config: { public: true },
      schema: {
        tags: ['authentication'],
        summary: "The platform's public signing keys (JWKS), including retired keys whose tokens may still be valid",
        security: [],
        response: {
          200: answer(Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) }), 'The key set', {
            keys: [
              {
                kty: 'EC',
                crv: 'P-256',
                x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
                y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
                kid: '1',
                alg: 'ES256',
                use: 'sig',
              },
            ],
          }),
        },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return ctx.signingKeys.jwks();
    },
  );
}
