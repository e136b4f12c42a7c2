import type { FastifyInstance } from 'fastify';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { sendJsonText } from '../../../platform/http/json-text.js';
import { maintenanceGuard } from '../notifications.access.js';
import type { NotificationsContext } from '../notifications.context.js';
import { ListQuery, NotificationListSchema, NOTIFICATION_EXAMPLE } from '../notifications.schemas.js';

export function listNotificationsRoute(app: FastifyInstance, ctx: NotificationsContext): void {
  app.get<{ Querystring: ListQuery }>(
    '/notification',
    {
      onRequest: maintenanceGuard(ctx.maintenance),
      schema: {
        tags: ['notifications'],
        summary: 'The notifications of the caller, newest first ({total, items}; limit cut to 10000)',
        querystring: ListQuery,
        response: {
          200: answer(NotificationListSchema, 'A page of the notifications and the total', {
            total: 1,
            items: [NOTIFICATION_EXAMPLE],
          }),
          ...errorResponses(400, 401, 503),
        },
      },
    },
    async (request, reply) =>
      sendJsonText(reply, await ctx.notifications.list(request.principal, request.query.start, request.query.limit)),
  );
}
