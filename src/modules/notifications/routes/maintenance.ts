import type { FastifyInstance } from 'fastify';
import { requireRoleOrRight } from '../../../platform/auth/auth-plugin.js';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import type { NotificationsContext } from '../notifications.context.js';
import { MaintenanceSchema, type Maintenance } from '../notifications.schemas.js';

const PATH = '/notification-maintenance';

/** The run-time maintenance switch of the caller's tenant (role ADMIN); it acts on every instance at once. */
export function maintenanceRoutes(app: FastifyInstance, ctx: NotificationsContext): void {
  app.get(
    PATH,
    {
      onRequest: requireRoleOrRight('ADMIN', []),
      schema: {
        tags: ['notifications'],
        summary: "Whether the tenant's notification endpoints are in maintenance mode (role ADMIN)",
        response: {
          200: answer(MaintenanceSchema, 'Whether maintenance mode is on', { active: false }),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request): Promise<Maintenance> => ({ active: ctx.maintenance.isActive(request.principal.tenantId) }),
  );
  app.put<{ Body: Maintenance }>(
    PATH,
    {
      onRequest: requireRoleOrRight('ADMIN', []),
      schema: {
        tags: ['notifications'],
        summary:
          "Switches the tenant's notification endpoints into or out of maintenance mode (503) on every instance (role ADMIN)",
        body: MaintenanceSchema,
        response: {
          200: answer(MaintenanceSchema, 'The mode as set', { active: false }),
          ...errorResponses(400, 401, 403, 415),
        },
      },
    },
    async (request): Promise<Maintenance> => {
      await ctx.maintenance.set(request.principal.tenantId, request.body.active);
      return { active: ctx.maintenance.isActive(request.principal.tenantId) };
    },
  );
}
