import type { FastifyInstance } from 'fastify';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { sendJsonText } from '../../../platform/http/json-text.js';
import { NOTIFICATION_RIGHTS, maintenanceGuard, notificationGuard } from '../notifications.access.js';
import type { NotificationsContext } from '../notifications.context.js';
import {
  NotificationBody,
  NotificationIdParams,
  NotificationSchema,
  type NotificationInput,
  NOTIFICATION_EXAMPLE,
} from '../notifications.schemas.js';

export function updateNotificationRoute(app: FastifyInstance, ctx: NotificationsContext): void {
  app.put<{ Params: NotificationIdParams; Body: NotificationInput }>(
    '/notification/:notificationId',
    {
      onRequest: [maintenanceGuard(ctx.maintenance), notificationGuard(NOTIFICATION_RIGHTS.update)],
      schema: {
        tags: ['notifications'],
        summary: 'Updates a notification: new date, version + 1 (role NOTIFICATION_ADMIN or right NOTIFICATION_UPDATE)',
        params: NotificationIdParams,
        body: NotificationBody,
        response: {
          200: answer(NotificationSchema, 'The notification as stored (version + 1)', {
            ...NOTIFICATION_EXAMPLE,
            version: 2,
          }),
          ...errorResponses(400, 401, 403, 404, 413, 415, 503),
        },
      },
    },
    async (request, reply) =>
      sendJsonText(
        reply,
        await ctx.notifications.update(request.principal, request.params.notificationId, request.body),
      ),
  );
}
