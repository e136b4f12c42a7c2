import type { FastifyInstance } from 'fastify';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import {
  ItemParamsSchema,
  StoreItemBodySchema,
  StoreItemSchema,
  type ItemParams,
  type StoreItemBody,
  StoreItemBodyDocument,
  ITEM_EXAMPLE,
} from '../storage.schemas.js';
import type { StorageContext } from '../storage.context.js';

/** Create-or-update under the path id, by POST and by PUT (decisions.md section 5). */
export function putItemRoutes(app: FastifyInstance, o: StorageContext): void {
  for (const method of ['POST', 'PUT'] as const) {
    app.route<{ Params: ItemParams; Body: StoreItemBody }>({
      method,
      url: `${o.prefix}/:storeId/:itemId`,
      bodyLimit: o.bodyLimit,
      config: { invalidJsonStatus: 500, openapi: { schema: { body: StoreItemBodyDocument } } },
      schema: {
        tags: ['storage'],
        summary: 'Create the item under this id, or replace it (needs write access to the existing item)',
        params: ItemParamsSchema,
        body: StoreItemBodySchema,
        response: {
          200: answer(StoreItemSchema, 'The item as stored', ITEM_EXAMPLE),
          ...errorResponses(400, 401, 403, 406, 413, 415, 500),
        },
      },
      handler: async (request) =>
        o.service.createOrUpdate(request.principal, request.params.storeId, request.params.itemId, request.body),
    });
  }
}
