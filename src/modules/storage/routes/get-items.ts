import type { FastifyInstance } from 'fastify';
import { NOT_MODIFIED, sendConditional, sendTagged, taggedAnswer } from '../../../platform/http/entity-tag.js';
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
    // JSON text in the shape of ItemListSchema, sent as it is; conditional, the tag read first (see get-item.ts).
    // Without If-None-Match nothing can spare the page: its tag comes from the change count the list reads itself
    // (a walk, in its own statement: one statement less a list, a round trip on PostgreSQL), else just before it.
    async (request, reply) => {
      const { principal, params, query } = request;
      const { storeId } = params;
      if (request.headers['if-none-match'] === undefined) {
        const changesFirst = () => o.tags.storeChanges(principal, storeId);
        const { text, changes } = await o.service.listCounted(principal, storeId, query, changesFirst);
        return sendTagged(reply, { tag: o.tags.listTag(principal, storeId, query, changes), text });
      }
      const tag = await o.tags.list(principal, storeId, query);
      return sendConditional(request, reply, tag, () => o.service.list(principal, storeId, query));
    },
  );
}
