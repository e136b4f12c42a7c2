import type { FastifyInstance } from 'fastify';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { SessionRecordSchema, SESSION_EXAMPLE } from '../identity.schemas.js';
import type { IdentityContext } from '../identity.context.js';

export function getSessionRoute(app: FastifyInstance, ctx: IdentityContext): void {
  app.get(
    '/authentication',
    {
      // Answers its own 401 (CORE_ERROR_SESSION_INVALID), so it skips the generic credential hook.
      config: { public: true },
      schema: {
        tags: ['authentication'],
        summary: 'The session record of the session cookie; also extends the session',
        description: 'Takes only the session cookie (its own 401 without it); API keys and tokens have no session.',
        security: [{ session: [] }],
        response: { 200: answer(SessionRecordSchema, 'The session record', SESSION_EXAMPLE), ...errorResponses(401) },
      },
    },
    async (request) => ctx.sessions.check(request.cookies[ctx.cookieName]),
  );
}
