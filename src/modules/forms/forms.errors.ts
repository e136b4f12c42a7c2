import { AppError } from '../../platform/errors/app-error.js';

/** The forms API's own errors. Missing rights answer 401, as the spec says for this API. */
export const FORMS_ERRORS = {
  unauthorized: (role: string, right: string) =>
    new AppError(401, {
      messageKey: 'FORMS_ERROR_UNAUTHORIZED',
      name: 'UNAUTHORIZED',
      message: `Requires role ${role} or right ${right}`,
      properties: { role, right },
    }),
  formNotFound: (formId: string) =>
    new AppError(404, {
      messageKey: 'FORMS_ERROR_FORM_NOT_FOUND',
      name: 'NOT_FOUND',
      message: `Form ${formId} does not exist`,
      properties: { formId },
    }),
  versionNotFound: (formId: string, version: string) =>
    new AppError(404, {
      messageKey: 'FORMS_ERROR_VERSION_NOT_FOUND',
      name: 'NOT_FOUND',
      message: `Form ${formId} has no version ${version}`,
      properties: { formId, version },
    }),
} as const;
