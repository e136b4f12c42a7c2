import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ERRORS } from '../../../platform/errors/error-catalogue.js';
import { errorResponses } from '../../../platform/http/schemas.js';
import type { IdentityContext } from '../identity.context.js';

export function postTokenRoute(app: FastifyInstance, ctx: IdentityContext): void {
  app.post(
    '/cxf/svc-core/authentication/token',
    {
      schema: {
        tags: ['authentication'],
        summary: 'Mints a short-lived access token (JWT) for the session or API key of this call',
        response: {
          200: Type.Object({ access_token: Type.String(), token_type: Type.Literal('Bearer'), expires_in: Type.Integer() }),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request) => {
      const p = request.principal;
      // A token cannot renew itself: minting needs the session or key behind it.
      if (p.kind === 'token') throw ERRORS.forbidden('An access token cannot mint access tokens; use a session or an API key');
      const minted = await ctx.tokens.mint(p);
      await ctx.audit.record({
        tenantId: p.tenantId,
        actor: p.loginName,
        action: 'token.mint',
        outcome: 'success',
        remoteAddress: request.ip,
        userAgent: String(request.headers['user-agent'] ?? ''),
        detail: { via: p.kind },
      });
      return minted;
    },
  );
}
