import type { FastifyInstance } from 'fastify';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { sendJsonText } from '../../../platform/http/json-text.js';
import { maintenanceGuard } from '../notifications.access.js';
import type { NotificationsContext } from '../notifications.context.js';
import { NotificationIdParams, NotificationSchema, NOTIFICATION_EXAMPLE } from '../notifications.schemas.js';

export function getNotificationRoute(app: FastifyInstance, ctx: NotificationsContext): void {
  app.get<{ Params: NotificationIdParams }>(
    '/notification/:notificationId',
    {
      onRequest: maintenanceGuard(ctx.maintenance),
      schema: {
        tags: ['notifications'],
        summary: 'The notification, when the caller is among its recipients (else 404)',
        params: NotificationIdParams,
        response: {
          200: answer(NotificationSchema, 'The notification', NOTIFICATION_EXAMPLE),
          ...errorResponses(400, 401, 404, 503),
        },
      },
    },
    async (request, reply) =>
      sendJsonText(reply, await ctx.notifications.get(request.principal, request.params.notificationId)),
  );
}
