import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../../platform/http/schemas.js';
import { maintenanceGuard } from '../notifications.access.js';
import type { NotificationsContext } from '../notifications.context.js';
import { visibilityOf } from '../notification.js';
import { NotificationEventSchema, StreamQuery, StreamResetSchema } from '../notifications.schemas.js';
import { eventStreamDocument } from '../../../platform/http/openapi.js';

export function streamNotificationsRoute(app: FastifyInstance, ctx: NotificationsContext): void {
  app.get<{ Querystring: StreamQuery }>(
    '/notification/stream',
    {
      onRequest: maintenanceGuard(ctx.maintenance),
      // An open stream holds a connection and a subscriber: limits.streamsPerCaller of them per caller and address.
      config: {
        longLived: true,
        rawAnswer: true,
        openapi: {
          schema: eventStreamDocument('The stream (`text/event-stream`); `retry:` first, then the events', {
            notification: {
              description: 'a notification the caller may see was added, updated or deleted',
              data: 'Notifications.Event.notification',
              resumable: true,
            },
            reset: {
              description: 'Last-Event-ID could not be resumed from; the stream starts from now',
              data: 'Notifications.Event.reset',
            },
          }),
          components: {
            'Notifications.Event.notification': NotificationEventSchema,
            'Notifications.Event.reset': StreamResetSchema,
          },
        },
      },
      schema: {
        tags: ['notifications'],
        summary:
          'Server-Sent Events: `notification` events (add, update, delete) the caller may see; resumes by Last-Event-ID',
        description:
          'A long-lived `text/event-stream` answer. Each `notification` event has an `id:`; after a reconnect, ' +
          'Last-Event-ID (header, or `lastEventId` for clients that cannot set it) resumes after it. The events and ' +
          "their data: the operation's `x-events`.",
        querystring: StreamQuery,
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ maxLength: 64 })) }),
        response: { 200: Type.String({ description: 'text/event-stream' }), ...errorResponses(400, 401, 429, 503) },
      },
    },
    async (request, reply) => {
      reply.hijack();
      const lastEventId = (request.headers['last-event-id'] as string | undefined) ?? request.query.lastEventId;
      await ctx.streams.open(reply.raw, request.principal.tenantId, visibilityOf(request.principal), lastEventId);
    },
  );
}
