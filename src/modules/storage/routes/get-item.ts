import type { FastifyInstance } from 'fastify';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { NOT_MODIFIED, sendConditional, taggedAnswer } from '../../../platform/http/entity-tag.js';
import { ItemParamsSchema, StoreItemSchema, type ItemParams, ITEM_EXAMPLE } from '../storage.schemas.js';
import type { StorageContext } from '../storage.context.js';

/**
 * Item read: 404 when missing, 403 when its readRestriction does not grant the caller. The service answers the
 * item as JSON text already in the shape of StoreItemSchema, which Fastify sends as it is (a string payload
 * with a JSON content type is not serialised again); the schema still documents the answer. Conditional: an ETag
 * from the store's change count and the caller's grantees (store-tags.ts), 304 for a matching If-None-Match.
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
          200: taggedAnswer(answer(StoreItemSchema, 'The item', ITEM_EXAMPLE)),
          ...NOT_MODIFIED,
          ...errorResponses(400, 401, 403, 404, 500),
        },
      },
    },
    // The tag first, from the store's change count only: a matching If-None-Match answers 304 without the item.
    async (request, reply) => {
      const { storeId, itemId } = request.params;
      const tag = await o.tags.item(request.principal, storeId, itemId);
      return sendConditional(request, reply, tag, () => o.service.read(request.principal, storeId, itemId));
    },
  );
}
