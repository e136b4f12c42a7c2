import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../../platform/http/schemas.js';
import { principalGrantees } from '../item-document.js';
import {
  StoreItemDeletedSchema,
  StoreItemEventSchema,
  StoreParamsSchema,
  StoreStreamQuerySchema,
  StoreStreamResetSchema,
  type StoreParams,
  type StoreStreamQuery,
} from '../storage.schemas.js';
import { eventStreamDocument } from '../../../platform/http/openapi.js';
import type { StorageContext } from '../storage.context.js';

/** The live changes of one store that the caller may see, as Server-Sent Events (live/store-streams.ts). */
export function streamStoreRoute(app: FastifyInstance, o: StorageContext): void {
  app.get<{ Params: StoreParams; Querystring: StoreStreamQuery }>(
    `${o.prefix}/:storeId/stream`,
    {
      // An open stream holds a connection and a subscriber: limits.streamsPerCaller of them per caller and address.
      config: {
        longLived: true,
        openapi: {
          schema: eventStreamDocument('The stream (`text/event-stream`); `retry:` first, then the events', {
            created: {
              description: 'an item the caller may read was created',
              data: 'Storage.Event.item',
              resumable: true,
            },
            updated: {
              description: 'an item the caller may read after the change was written',
              data: 'Storage.Event.item',
              resumable: true,
            },
            deleted: {
              description: 'an item the caller could read was deleted, or may no longer be read by the caller',
              data: 'Storage.Event.deleted',
              resumable: true,
            },
            reset: {
              description: 'Last-Event-ID could not be resumed from; the stream starts from now',
              data: 'Storage.Event.reset',
            },
          }),
          components: {
            'Storage.Event.item': StoreItemEventSchema,
            'Storage.Event.deleted': StoreItemDeletedSchema,
            'Storage.Event.reset': StoreStreamResetSchema,
          },
        },
      },
      schema: {
        tags: ['storage'],
        summary: 'Server-Sent Events: `created`, `updated`, `deleted` of the items of a store the caller may read',
        description:
          'Each change of an item the caller may read after it: `created` or `updated` with ' +
          '`{"storeId","id","item"}` (the item as a read answers it). An item the caller could read before a change ' +
          'and may not after it (restricted away, deleted): `deleted` with `{"storeId","id"}`. Nothing for items it ' +
          'could read neither before nor after. Resumes after `Last-Event-ID` (header, or `lastEventId` for clients ' +
          'that cannot set it); `reset` when it cannot; a comment line as heartbeat. Example frame: ' +
          '`id: 42\\nevent: updated\\ndata: {"storeId":"tasks","id":"t-1","item":{...}}`.',
        params: StoreParamsSchema,
        querystring: StoreStreamQuerySchema,
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ maxLength: 64 })) }),
        response: { 200: Type.String({ description: 'text/event-stream' }), ...errorResponses(400, 401, 429, 500) },
      },
    },
    async (request, reply) => {
      reply.hijack();
      const lastEventId = (request.headers['last-event-id'] as string | undefined) ?? request.query.lastEventId;
      const { principal } = request;
      await o.streams.open(
        reply.raw,
        principal.tenantId,
        request.params.storeId,
        principalGrantees(principal),
        lastEventId,
      );
    },
  );
}
