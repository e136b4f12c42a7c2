import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { ERRORS } from '../../../platform/errors/error-catalogue.js';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { LoginBodySchema, SessionRecordSchema, SESSION_EXAMPLE } from '../identity.schemas.js';
import { requestMeta } from '../../../platform/http/request-meta.js';
import type { IdentityContext } from '../identity.context.js';

const FORM = 'application/x-www-form-urlencoded';

export function postLoginRoute(app: FastifyInstance, ctx: IdentityContext): void {
  app.post<{ Body: Static<typeof LoginBodySchema> }>(
    '/authentication',
    {
      config: { public: true },
      schema: {
        tags: ['authentication'],
        summary: 'Log in with tenant, user name and password (form-encoded); sets the session cookie',
        description: 'Needs no credential. The answer carries the CSRF token (principals X-Csrf-Token) for writes.',
        security: [],
        consumes: [FORM],
        body: LoginBodySchema,
        response: {
          200: answer(
            SessionRecordSchema,
            'Logged in: the session record; Set-Cookie holds the session',
            SESSION_EXAMPLE,
          ),
          ...errorResponses(400, 401, 415, 429),
        },
      },
      // The content type is part of the contract: refuse JSON and friends before validation.
      preValidation: async (request) => {
        const type = String(request.headers['content-type'] ?? '')
          .split(';')[0]
          .trim()
          .toLowerCase();
        if (type !== FORM) throw ERRORS.unsupportedMediaType(FORM);
      },
    },
    async (request, reply) => {
      const { sessionId, record } = await ctx.sessions.login({
        tenantname: request.body.tenantname,
        username: request.body.username,
        password: request.body.password,
        ...requestMeta(request),
      });
      reply.setCookie(ctx.cookieName, sessionId, {
        httpOnly: true,
        sameSite: 'lax',
        path: '/',
        secure: request.protocol === 'https',
        maxAge: ctx.sessionTtlSeconds,
      });
      return record;
    },
  );
}
