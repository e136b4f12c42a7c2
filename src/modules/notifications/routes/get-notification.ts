import type { FastifyInstance } from 'fastify';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { NOT_MODIFIED, sendConditional, taggedAnswer } from '../../../platform/http/entity-tag.js';
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
          200: taggedAnswer(answer(NotificationSchema, 'The notification', NOTIFICATION_EXAMPLE)),
          ...NOT_MODIFIED,
          ...errorResponses(400, 401, 404, 503),
        },
      },
    },
    async (request, reply) => {
      const { principal, params } = request;
      const tag = await ctx.tags.notification(principal, params.notificationId);
      return sendConditional(request, reply, tag, () => ctx.notifications.get(principal, params.notificationId));
    },
  );
}
