import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../../platform/http/schemas.js';
import { ERRORS } from '../../../../platform/errors/error-catalogue.js';
import { requestMeta } from '../../../../platform/http/request-meta.js';
import type { TenantsService } from '../../admin/tenants.service.js';
import {
  NewTenantBody,
  PageQuery,
  TenantParams,
  TenantSchema,
  TenantUpdateBody,
  tenantOut,
} from '../../admin/admin.schemas.js';
import { ADMIN_TAG } from './admin-guard.js';

// A person's credentials only: API keys are never platform administrators.
const SECURITY_READ: Array<Record<string, string[]>> = [{ bearer: [] }, { session: [] }];
const SECURITY_WRITE: Array<Record<string, string[]>> = [{ bearer: [] }, { session: [], csrf: [] }];

/** Tenants of the platform, for the platform administrators the config file names (`identity.platformAdmins`). */
export function adminTenantRoutes(app: FastifyInstance, tenants: TenantsService): void {
  // After validation (preHandler): a platform administrator is a user of the config, not a grant, so the answer to
  // anyone else is the same 403 whatever they send; bad input is 400 first, as for every grant-guarded query.
  const base = {
    preHandler: async (request: FastifyRequest) => {
      if (!tenants.isPlatformAdmin(request.principal))
        throw ERRORS.forbidden('Requires a platform administrator (identity.platformAdmins)');
    },
  };

  app.get<{ Querystring: Static<typeof PageQuery> }>(
    '/admin/tenants',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        security: SECURITY_READ,
        summary: 'Lists the tenants of the platform by name (platform administrators)',
        querystring: PageQuery,
        response: {
          200: answer(
            Type.Object({ total: Type.Integer(), items: Type.Array(TenantSchema) }),
            'A page of the tenants',
            { total: 1, items: [TenantSchema.examples[0]] },
          ),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => {
      const page = await tenants.list(request.query.start, request.query.limit);
      return { total: page.total, items: page.items.map(tenantOut) };
    },
  );

  app.post<{ Body: Static<typeof NewTenantBody> }>(
    '/admin/tenants',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        security: SECURITY_WRITE,
        summary: 'Creates a tenant (platform administrators); 409 when the name is taken',
        description:
          'With `admin`, its first user (role TENANT_ADMIN) is created with it, who then administers the tenant; without, its users come from the config file or the CLI.',
        body: NewTenantBody,
        response: {
          201: answer(TenantSchema, 'The tenant is created', TenantSchema.examples[0]),
          ...errorResponses(400, 401, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const t = await tenants.create(request.principal, request.body.name, request.body.admin, requestMeta(request));
      reply.code(201);
      return tenantOut(t);
    },
  );

  app.patch<{ Params: Static<typeof TenantParams>; Body: Static<typeof TenantUpdateBody> }>(
    '/admin/tenants/:name',
    {
      ...base,
      schema: {
        tags: [ADMIN_TAG],
        security: SECURITY_WRITE,
        summary: 'Deactivates or reactivates a tenant (platform administrators)',
        description:
          'Deactivated: its users cannot log in, its sessions end and its API keys stop working, on every instance at once; access tokens already minted run out within their lifetime (identity.tokens.ttlSeconds). Your own tenant cannot be deactivated (409).',
        params: TenantParams,
        body: TenantUpdateBody,
        response: {
          200: answer(TenantSchema, 'The tenant as changed', { ...TenantSchema.examples[0], active: false }),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) =>
      tenantOut(
        await tenants.setActive(request.principal, request.params.name, request.body.active, requestMeta(request)),
      ),
  );
}
