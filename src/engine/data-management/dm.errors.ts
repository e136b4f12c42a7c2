import { AppError } from '../../platform/errors/app-error.js';

/** Errors of the data management API (decisions section 9): 400 invalid call, 404 missing, 409 conflict. */
export const DM_ERRORS = {
  invalidCall: (message: string, properties: Record<string, unknown> = {}) =>
    new AppError(400, { messageKey: 'DM_ERROR_INVALID_CALL', name: 'BAD_REQUEST', message, properties }),
  unknownMethod: (context: string, method: string) =>
    new AppError(400, {
      messageKey: 'DM_ERROR_UNKNOWN_METHOD',
      name: 'BAD_REQUEST',
      message: `No method ${method.slice(0, 100)} in context ${context.slice(0, 100)}`,
      properties: { context: context.slice(0, 100), method: method.slice(0, 100) },
    }),
  templateNotFound: (ref: string) =>
    new AppError(404, {
      messageKey: 'DM_ERROR_TEMPLATE_NOT_FOUND',
      name: 'NOT_FOUND',
      message: `No template ${ref.slice(0, 200)}`,
      properties: { template: ref.slice(0, 200) },
    }),
  imageNotFound: (ref: string) =>
    new AppError(404, {
      messageKey: 'DM_ERROR_IMAGE_NOT_FOUND',
      name: 'NOT_FOUND',
      message: `Template ${ref.slice(0, 200)} has no image`,
      properties: { template: ref.slice(0, 200) },
    }),
  /** A restricted template, and the engine user has none of its roles. */
  restricted: (customId: string, roles: string[]) =>
    new AppError(403, {
      messageKey: 'DM_ERROR_FORBIDDEN',
      name: 'FORBIDDEN',
      message: `Template ${customId.slice(0, 200)} is restricted to the roles ${roles.join(', ').slice(0, 500)}`,
      properties: {},
    }),
  templateInUse: (ref: string) =>
    new AppError(409, {
      messageKey: 'DM_ERROR_TEMPLATE_IN_USE',
      name: 'CONFLICT',
      message: `Template ${ref.slice(0, 200)} has assets; delete them first`,
      properties: { template: ref.slice(0, 200) },
    }),
  assetNotFound: (ref: string) =>
    new AppError(404, {
      messageKey: 'DM_ERROR_ASSET_NOT_FOUND',
      name: 'NOT_FOUND',
      message: `No asset ${ref.slice(0, 200)}`,
      properties: { asset: ref.slice(0, 200) },
    }),
  versionNotFound: (ref: string) =>
    new AppError(404, {
      messageKey: 'DM_ERROR_VERSION_NOT_FOUND',
      name: 'NOT_FOUND',
      message: `No version ${ref.slice(0, 200)}`,
      properties: { version: ref.slice(0, 200) },
    }),
  queryNotFound: (name: string) =>
    new AppError(404, {
      messageKey: 'DM_ERROR_QUERY_NOT_FOUND',
      name: 'NOT_FOUND',
      message: `No saved query ${name.slice(0, 200)}`,
      properties: { name: name.slice(0, 200) },
    }),
  /** An asset's customId taken in its template, or a parent that still has child assets. */
  conflict: (message: string, properties: Record<string, unknown>) =>
    new AppError(409, { messageKey: 'DM_ERROR_CONFLICT', name: 'CONFLICT', message, properties }),
  customIdTaken: (customId: string) =>
    new AppError(409, {
      messageKey: 'DM_ERROR_CUSTOM_ID_TAKEN',
      name: 'CONFLICT',
      message: `customId ${customId.slice(0, 200)} is taken`,
      properties: { customId: customId.slice(0, 200) },
    }),
} as const;
