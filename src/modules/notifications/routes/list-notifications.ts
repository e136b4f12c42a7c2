import type { FastifyInstance } from 'fastify';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import {
  CONDITIONAL_CACHE_CONTROL,
  NOT_MODIFIED,
  sendConditional,
  taggedAnswer,
} from '../../../platform/http/entity-tag.js';
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
          200: taggedAnswer(
            answer(NotificationListSchema, 'A page of the notifications and the total', {
              total: 1,
              items: [NOTIFICATION_EXAMPLE],
            }),
          ),
          ...NOT_MODIFIED,
          ...errorResponses(400, 401, 503),
        },
      },
    },
    // Conditional: the tag from the tenant's change count, read before the page (notification-tags.ts), or, where
    // neither If-None-Match nor a kept answer could spare the page (the first list after a write), by its statement.
    async (request, reply) => {
      const { principal, query } = request;
      if (
        request.headers['if-none-match'] === undefined &&
        !ctx.notifications.hasKept(principal, query.start, query.limit)
      ) {
        const { changes, text } = await ctx.notifications.listCounted(principal, query.start, query.limit);
        const tag = ctx.tags.listTag(principal, query.start, query.limit, changes);
        reply.header('etag', tag).header('cache-control', CONDITIONAL_CACHE_CONTROL);
        return sendJsonText(reply, text);
      }
      const { tag, changes } = await ctx.tags.list(principal, query.start, query.limit);
      return sendConditional(request, reply, tag, () =>
        ctx.notifications.list(principal, query.start, query.limit, changes),
      );
    },
  );
}
