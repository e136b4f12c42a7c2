import { AppError } from '../../platform/errors/app-error.js';

/** The storage module's errors; every one renders as the error object. */
export const STORAGE_ERRORS = {
  itemNotFound: (storeId: string, itemId: string) =>
    new AppError(404, {
      messageKey: 'STORAGE_ERROR_ITEM_NOT_FOUND',
      name: 'NOT_FOUND',
      message: 'The store or the item does not exist',
      properties: { storeId, itemId },
    }),
  noReadAccess: (storeId: string, itemId: string) =>
    new AppError(403, {
      messageKey: 'STORAGE_ERROR_NO_READ_ACCESS',
      name: 'FORBIDDEN',
      message: 'The readRestriction of the item does not grant access',
      properties: { storeId, itemId },
    }),
  noWriteAccess: (storeId: string, itemId: string) =>
    new AppError(403, {
      messageKey: 'STORAGE_ERROR_NO_WRITE_ACCESS',
      name: 'FORBIDDEN',
      message: 'The writeRestriction of the item does not grant access',
      properties: { storeId, itemId },
    }),
  mandatoryFieldsMissing: (fields: string[]) =>
    new AppError(406, {
      messageKey: 'STORAGE_ERROR_MANDATORY_FIELDS_MISSING',
      name: 'NOT_ACCEPTABLE',
      message: `Mandatory fields missing or empty: ${fields.join(', ')}`,
      properties: { fields },
    }),
  nestingTooDeep: (field: string, maxDepth: number) =>
    new AppError(400, {
      messageKey: 'STORAGE_ERROR_NESTING_TOO_DEEP',
      name: 'BAD_REQUEST',
      message: `${field} nests deeper than ${maxDepth} levels`,
      properties: { field, maxDepth },
    }),
} as const;
