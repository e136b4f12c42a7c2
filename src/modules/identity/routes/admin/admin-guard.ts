import { requireRoleOrRight } from '../../../../platform/auth/auth-plugin.js';
import { ERRORS } from '../../../../platform/errors/error-catalogue.js';
import { TENANT_ADMIN } from '../../identity.service.js';

/** Tenant administration needs role or right TENANT_ADMIN; checked before the body is read (403 for anyone else). */
export const requireTenantAdmin = requireRoleOrRight(TENANT_ADMIN, TENANT_ADMIN, () =>
  ERRORS.forbidden(`Requires role or right ${TENANT_ADMIN}`),
);

export const ADMIN_TAG = 'administration';
