import type { FastifyInstance } from 'fastify';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { sendJsonText } from '../../../platform/http/json-text.js';
import { NOTIFICATION_RIGHTS, maintenanceGuard, notificationGuard } from '../notifications.access.js';
import type { NotificationsContext } from '../notifications.context.js';
import {
  NotificationBody,
  NotificationSchema,
  type NotificationInput,
  NOTIFICATION_EXAMPLE,
} from '../notifications.schemas.js';

export function addNotificationRoute(app: FastifyInstance, ctx: NotificationsContext): void {
  app.post<{ Body: NotificationInput }>(
    '/notification',
    {
      onRequest: [maintenanceGuard(ctx.maintenance), notificationGuard(NOTIFICATION_RIGHTS.add)],
      schema: {
        tags: ['notifications'],
        summary: 'Adds a notification (role NOTIFICATION_ADMIN or right NOTIFICATION_ADD)',
        body: NotificationBody,
        response: {
          200: answer(NotificationSchema, 'The notification as stored', NOTIFICATION_EXAMPLE),
          ...errorResponses(400, 401, 403, 409, 413, 415, 503),
        },
      },
    },
    async (request, reply) => sendJsonText(reply, await ctx.notifications.add(request.principal, request.body)),
  );
}
