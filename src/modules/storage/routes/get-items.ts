import type { FastifyInstance } from 'fastify';
import { NOT_MODIFIED, sendTagged, taggedAnswer } from '../../../platform/http/entity-tag.js';
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
          200: taggedAnswer(
            answer(ItemListSchema, 'A page of the items and the total', { total: 1, items: [ITEM_EXAMPLE] }),
          ),
          ...NOT_MODIFIED,
          ...errorResponses(400, 401, 500),
        },
      },
    },
    // JSON text in the shape of ItemListSchema, sent as it is; conditional, and a list asked again while its store is
    // unchanged answers its kept text (StorageService.listTagged).
    async (request, reply) => {
      const { principal, params, query } = request;
      const answer = await o.service.listTagged(principal, params.storeId, query, request.headers['if-none-match']);
      return sendTagged(reply, answer);
    },
  );
}
