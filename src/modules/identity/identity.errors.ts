import { AppError } from '../../platform/errors/app-error.js';
import { AUTH_CODE, ERRORS } from '../../platform/errors/error-catalogue.js';

/** The identity API's own errors; the shared ones (authentication failed, forbidden...) are in the catalogue. */
export const IDENTITY_ERRORS = {
  sessionInvalid: () =>
    new AppError(401, {
      messageKey: 'CORE_ERROR_SESSION_INVALID',
      code: AUTH_CODE,
      name: 'AUTHENTICATION_UNAUTHORIZED',
      message: 'Session is invalid or has expired',
    }),
  passwordLoginDisabled: () =>
    new AppError(401, {
      messageKey: 'CORE_ERROR_PASSWORD_LOGIN_DISABLED',
      code: AUTH_CODE,
      name: 'AUTHENTICATION_UNAUTHORIZED',
      message: 'Password login is disabled: an OIDC identity provider is in use',
    }),
  userNotFound: (loginName: string) => ERRORS.notFound(`No user ${loginName} in this tenant`, { loginName }),
  userExists: (loginName: string) => ERRORS.conflict(`User ${loginName} exists already`, { loginName }),
  apiKeyNotFound: (name: string) => ERRORS.notFound(`No API key ${name} in this tenant`, { name }),
  apiKeyExists: (name: string) => ERRORS.conflict(`API key ${name} exists already`, { name }),
  sessionNotFound: () => ERRORS.notFound('No live session with this id for this user'),
  tenantNotFound: (name: string) => ERRORS.notFound(`No tenant ${name}`, { tenant: name }),
  tenantExists: (name: string) => ERRORS.conflict(`Tenant ${name} exists already`, { tenant: name }),
  notOnYourself: (what: string) =>
    ERRORS.conflict(`An administrator cannot ${what} their own account or tenant; another administrator can`),
  tokenCannotMintTokens: () =>
    ERRORS.forbidden('An access token cannot mint access tokens; use a session or an API key'),
} as const;
