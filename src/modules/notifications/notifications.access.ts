import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireRoleOrRight } from '../../platform/auth/auth-plugin.js';
import type { MaintenanceSwitch } from './maintenance.js';
import { NOTIFICATION_ERRORS } from './notifications.errors.js';
import { NOTIFICATION_ADMIN } from './notification.js';

export const NOTIFICATION_RIGHTS = {
  add: 'NOTIFICATION_ADD',
  update: 'NOTIFICATION_UPDATE',
  delete: 'NOTIFICATION_DELETE',
} as const;

/** Role NOTIFICATION_ADMIN or the right, else 403 (decisions.md section 7); checked before the body is read. */
export const notificationGuard = (right: string) => requireRoleOrRight(NOTIFICATION_ADMIN, right);

/** Every notification endpoint answers 503 while the caller's tenant is in maintenance (decisions.md section 7). */
export const maintenanceGuard = (maintenance: MaintenanceSwitch) =>
  async function notInMaintenance(request: FastifyRequest, _reply: FastifyReply) {
    if (maintenance.isActive(request.principal.tenantId)) throw NOTIFICATION_ERRORS.maintenance();
  };
