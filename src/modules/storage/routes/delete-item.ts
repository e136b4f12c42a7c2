import type { FastifyInstance } from 'fastify';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { ItemParamsSchema, StoreItemSchema, type ItemParams, ITEM_EXAMPLE } from '../storage.schemas.js';
import type { StorageContext } from '../storage.context.js';

/** Delete: needs write access; answers the deleted item. */
export function deleteItemRoute(app: FastifyInstance, o: StorageContext): void {
  app.delete<{ Params: ItemParams }>(
    `${o.prefix}/:storeId/:itemId`,
    {
      schema: {
        tags: ['storage'],
        summary: 'Delete one item; answers it as it was',
        params: ItemParamsSchema,
        response: {
          200: answer(StoreItemSchema, 'The item as it was', ITEM_EXAMPLE),
          ...errorResponses(400, 401, 403, 404, 500),
        },
      },
    },
    async (request) => o.service.delete(request.principal, request.params.storeId, request.params.itemId),
  );
}
