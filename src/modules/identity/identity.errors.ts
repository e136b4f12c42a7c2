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
  tokenCannotMintTokens: () =>
    ERRORS.forbidden('An access token cannot mint access tokens; use a session or an API key'),
} as const;
