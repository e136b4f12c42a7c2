import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../../platform/http/schemas.js';
import { ERRORS } from '../../../../platform/errors/error-catalogue.js';
import type { AdminService } from '../../admin/admin.service.js';
import {
  ApiKeyParams,
  ApiKeySchema,
  CreatedApiKeySchema,
  ExpiryBody,
  NewApiKeyBody,
  PageQuery,
  apiKeyOut,
  callerOf,
} from '../../admin/admin.schemas.js';
import { ADMIN_TAG, requireTenantAdmin } from './admin-guard.js';

function instant(value: string | null | undefined, path: string): number | null {
  if (value === undefined || value === null) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw ERRORS.validation([{ path, message: 'must be an ISO 8601 date-time' }]);
  return ms;
}

/** API keys of the caller's tenant: list (never the secrets), create (the key shown once), revoke, set expiry. */
export function adminApiKeyRoutes(app: FastifyInstance, admin: AdminService): void {
  const base = { onRequest: requireTenantAdmin };

  app.get<{ Querystring: Static<typeof PageQuery> }>(
    '/admin/api-keys',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: 'Lists the API keys of your tenant by name, without their secrets (TENANT_ADMIN)',
        querystring: PageQuery,
        response: {
          200: answer(
            Type.Object({ total: Type.Integer(), items: Type.Array(ApiKeySchema) }),
            'A page of the API keys, without their secrets',
            { total: 1, items: [CreatedApiKeySchema.examples[0].apiKey] },
          ),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => {
      const page = await admin.listApiKeys(callerOf(request), request.query.start, request.query.limit);
      return { total: page.total, items: page.items.map(apiKeyOut) };
    },
  );

  app.post<{ Body: Static<typeof NewApiKeyBody> }>(
    '/admin/api-keys',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: 'Creates an API key in your tenant; the key is answered this once (TENANT_ADMIN)',
        description: 'Only its SHA-256 hash is stored: a lost key cannot be shown again, only revoked and replaced.',
        body: NewApiKeyBody,
        response: {
          201: answer(
            CreatedApiKeySchema,
            'The key is created; `key` is shown this once',
            CreatedApiKeySchema.examples[0],
          ),
          ...errorResponses(400, 401, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const { expiresOn, ...rest } = request.body;
      const created = await admin.createApiKey(callerOf(request), {
        ...rest,
        expiresOn: instant(expiresOn, 'body.expiresOn'),
      });
      reply.code(201);
      return { key: created.key, apiKey: apiKeyOut(created.apiKey) };
    },
  );

  app.delete<{ Params: Static<typeof ApiKeyParams> }>(
    '/admin/api-keys/:name',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: 'Revokes (deletes) an API key of your tenant; it stops working at once on every instance',
        params: ApiKeyParams,
        response: {
          200: Type.Object(
            { revoked: Type.Boolean() },
            { description: 'The key is revoked on every instance', examples: [{ revoked: true }] },
          ),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      await admin.revokeApiKey(callerOf(request), request.params.name);
      return { revoked: true };
    },
  );

  app.put<{ Params: Static<typeof ApiKeyParams>; Body: Static<typeof ExpiryBody> }>(
    '/admin/api-keys/:name/expiry',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        summary: "Sets or clears an API key's expiry (TENANT_ADMIN); a past instant stops it at once",
        params: ApiKeyParams,
        body: ExpiryBody,
        response: {
          200: answer(ApiKeySchema, 'The key with its new expiry', CreatedApiKeySchema.examples[0].apiKey),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      apiKeyOut(
        await admin.setApiKeyExpiry(
          callerOf(request),
          request.params.name,
          instant(request.body.expiresOn, 'body.expiresOn'),
        ),
      ),
  );
}
