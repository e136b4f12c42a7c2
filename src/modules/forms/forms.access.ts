import { requireRoleOrRight } from '../../platform/auth/auth-plugin.js';
import { FORMS_ERRORS } from './forms.errors.js';

export const FORMS_ADMIN = 'FORMS_ADMIN';

export const FORMS_RIGHTS = {
  readAll: 'FORMS_READ_ALL',
  add: 'FORMS_ADD',
  update: 'FORMS_UPDATE',
  readHistory: 'FORMS_READ_HISTORY',
  delete: 'FORMS_DELETE',
} as const;

/**
 * Role FORMS_ADMIN or the named right, else 401 (the spec's code for this API). Used as an onRequest
 * hook, so a caller without access is refused before its body is read or validated.
 */
export const formsGuard = (right: string) =>
  requireRoleOrRight(FORMS_ADMIN, right, () => FORMS_ERRORS.unauthorized(FORMS_ADMIN, right));
