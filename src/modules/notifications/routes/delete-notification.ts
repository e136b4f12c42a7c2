import type { FastifyInstance } from 'fastify';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { sendJsonText } from '../../../platform/http/json-text.js';
import { NOTIFICATION_RIGHTS, maintenanceGuard, notificationGuard } from '../notifications.access.js';
import type { NotificationsContext } from '../notifications.context.js';
import { NotificationIdParams, NotificationSchema, NOTIFICATION_EXAMPLE } from '../notifications.schemas.js';

export function deleteNotificationRoute(app: FastifyInstance, ctx: NotificationsContext): void {
  app.delete<{ Params: NotificationIdParams }>(
    '/notification/:notificationId',
    {
      onRequest: [maintenanceGuard(ctx.maintenance), notificationGuard(NOTIFICATION_RIGHTS.delete)],
      schema: {
        tags: ['notifications'],
        summary: 'Deletes a notification and answers it (role NOTIFICATION_ADMIN or right NOTIFICATION_DELETE)',
        params: NotificationIdParams,
        response: {
          200: answer(NotificationSchema, 'The notification as it was', NOTIFICATION_EXAMPLE),
          ...errorResponses(400, 401, 403, 404, 503),
        },
      },
    },
    async (request, reply) =>
      sendJsonText(reply, await ctx.notifications.delete(request.principal, request.params.notificationId)),
  );
}
