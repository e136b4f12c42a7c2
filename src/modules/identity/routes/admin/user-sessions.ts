import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../../platform/http/schemas.js';
import type { AdminService } from '../../admin/admin.service.js';
import {
  LoginNameParams,
  SessionParams,
  SessionSchema,
  SessionsEndedSchema,
  callerOf,
  sessionOut,
} from '../../admin/admin.schemas.js';
import { ADMIN_TAG, requireTenantAdmin } from './admin-guard.js';

/** A user's live sessions: list them, end one or all (on every instance at once). */
export function adminSessionRoutes(app: FastifyInstance, admin: AdminService): void {
  const base = { onRequest: requireTenantAdmin };

  app.get<{ Params: Static<typeof LoginNameParams> }>(
    '/admin/users/:loginName/sessions',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: "A user's live sessions, newest first (TENANT_ADMIN)",
        params: LoginNameParams,
        response: {
          200: answer(Type.Object({ items: Type.Array(SessionSchema) }), "The user's live sessions", {
            items: [
              {
                id: '9f2c4e8a1b7d3f60c5e4a2b9d8c7f6e5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9',
                createdOn: '2026-12-01T09:00:00.000Z',
                expiresOn: '2026-12-01T17:00:00.000Z',
                remoteAddress: '203.0.113.7',
                userAgent: 'Mozilla/5.0',
              },
            ],
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => ({
      items: (await admin.listSessions(callerOf(request), request.params.loginName)).map(sessionOut),
    }),
  );

  app.delete<{ Params: Static<typeof LoginNameParams> }>(
    '/admin/users/:loginName/sessions',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: "Ends all of a user's sessions, on every instance (TENANT_ADMIN)",
        params: LoginNameParams,
        response: {
          200: answer(SessionsEndedSchema, "The user's sessions ended, on every instance", { sessionsEnded: 2 }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => admin.endSessions(callerOf(request), request.params.loginName),
  );

  app.delete<{ Params: Static<typeof SessionParams> }>(
    '/admin/users/:loginName/sessions/:id',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: "Ends one of a user's sessions, on every instance (TENANT_ADMIN)",
        params: SessionParams,
        response: {
          200: answer(SessionsEndedSchema, 'The session ended, on every instance', { sessionsEnded: 1 }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => admin.endSessions(callerOf(request), request.params.loginName, request.params.id),
  );
}
