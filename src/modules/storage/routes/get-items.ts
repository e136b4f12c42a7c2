import type { FastifyInstance } from 'fastify';
import { sendJsonText } from '../../../platform/http/json-text.js';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import {
  ItemListSchema,
  ListQuerySchema,
  StoreParamsSchema,
  type ListQuery,
  type StoreParams,
  ITEM_EXAMPLE,
} from '../storage.schemas.js';
import type { StorageContext } from '../storage.context.js';

/** List read: the items the caller may read, filtered, sorted and paged in SQL. */
export function getItemsRoute(app: FastifyInstance, o: StorageContext): void {
  app.get<{ Params: StoreParams; Querystring: ListQuery }>(
    `${o.prefix}/:storeId`,
    {
      schema: {
        tags: ['storage'],
        summary: 'List the items of a store the caller may read; a store that does not exist is empty',
        params: StoreParamsSchema,
        querystring: ListQuerySchema,
        response: {
          200: answer(ItemListSchema, 'A page of the items and the total', { total: 1, items: [ITEM_EXAMPLE] }),
          ...errorResponses(400, 401, 500),
        },
      },
    },
    // JSON text in the shape of ItemListSchema, sent as it is (see get-item.ts).
    async (request, reply) =>
      sendJsonText(reply, await o.service.list(request.principal, request.params.storeId, request.query)),
  );
}
