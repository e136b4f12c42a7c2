import { AppError } from '../../platform/errors/app-error.js';

/** The notification API's own errors (interface-spec, Notification API; decisions.md section 7). */
export const NOTIFICATION_ERRORS = {
  notFound: (id: string) =>
    new AppError(404, {
      messageKey: 'NOTIFICATION_ERROR_NOT_FOUND',
      name: 'NOT_FOUND',
      message: `Notification ${id} does not exist`,
      properties: { id },
    }),
  maintenance: () =>
    new AppError(503, {
      messageKey: 'NOTIFICATION_ERROR_MAINTENANCE',
      name: 'SERVICE_UNAVAILABLE',
      message: 'The notification service is in maintenance mode',
    }),
  idMismatch: (pathId: string, bodyId: string) =>
    new AppError(400, {
      messageKey: 'CORE_ERROR_VALIDATION_FAILED',
      name: 'VALIDATION_FAILED',
      message: `id: the body names notification ${bodyId}, the path ${pathId}`,
      properties: { errors: [{ path: '/id', message: 'must equal the id in the path' }] },
    }),
  exists: (id: string) =>
    new AppError(409, {
      messageKey: 'NOTIFICATION_ERROR_EXISTS',
      name: 'CONFLICT',
      message: `Notification ${id} exists already; PUT changes it`,
      properties: { id },
    }),
} as const;
