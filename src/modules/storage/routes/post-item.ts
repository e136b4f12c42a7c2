import type { FastifyInstance } from 'fastify';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import {
  CreatedItemSchema,
  StoreItemBodySchema,
  StoreParamsSchema,
  type StoreItemBody,
  type StoreParams,
  StoreItemBodyDocument,
} from '../storage.schemas.js';
import type { StorageContext } from '../storage.context.js';

/** Create: a new item under a new UUID in the store (created on first write). */
export function postItemRoute(app: FastifyInstance, o: StorageContext): void {
  app.post<{ Params: StoreParams; Body: StoreItemBody }>(
    `${o.prefix}/:storeId`,
    {
      bodyLimit: o.bodyLimit,
      config: { invalidJsonStatus: 500, openapi: { schema: { body: StoreItemBodyDocument } } },
      schema: {
        tags: ['storage'],
        summary: 'Create an item; the service sets a new UUID as its id',
        params: StoreParamsSchema,
        body: StoreItemBodySchema,
        response: {
          200: answer(CreatedItemSchema, 'The id of the new item', { id: '0b7c1e1a-3c2d-4a57-9d52-5f0e3c1a2b4c' }),
          ...errorResponses(400, 401, 403, 406, 413, 415, 500),
        },
      },
    },
    async (request) => ({ id: await o.service.create(request.principal, request.params.storeId, request.body) }),
  );
}
