import type { FastifyInstance } from 'fastify';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { sendJsonText } from '../../../platform/http/json-text.js';
import { ItemParamsSchema, StoreItemSchema, type ItemParams, ITEM_EXAMPLE } from '../storage.schemas.js';
import type { StorageContext } from '../storage.context.js';

/**
 * Item read: 404 when missing, 403 when its readRestriction does not grant the caller. The service answers the
 * item as JSON text already in the shape of StoreItemSchema, which Fastify sends as it is (a string payload
 * with a JSON content type is not serialised again); the schema still documents the answer.
 */
export function getItemRoute(app: FastifyInstance, o: StorageContext): void {
  app.get<{ Params: ItemParams }>(
    `${o.prefix}/:storeId/:itemId`,
    {
      schema: {
        tags: ['storage'],
        summary: 'Read one item',
        params: ItemParamsSchema,
        response: {
          200: answer(StoreItemSchema, 'The item', ITEM_EXAMPLE),
          ...errorResponses(400, 401, 403, 404, 500),
        },
      },
    },
    async (request, reply) => {
      return sendJsonText(
        reply,
        await o.service.read(request.principal, request.params.storeId, request.params.itemId),
      );
    },
  );
}
