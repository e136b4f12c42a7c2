import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../../platform/http/schemas.js';
import { StoreListQuerySchema, StoreListSchema, type StoreListQuery } from '../storage.schemas.js';
import type { StorageContext } from '../storage.context.js';

/** The caller's stores with the number of items it may read in each; stores where it may read none are left out. */
export function listStoresRoute(app: FastifyInstance, o: StorageContext): void {
  app.get<{ Querystring: StoreListQuery }>(
    o.prefix,
    {
      schema: {
        tags: ['storage'],
        summary: "List the stores of the caller's tenant with the number of items the caller may read in each",
        description:
          'Ordered by store id, paged by start and limit. A store in which the caller may read no item is not listed ' +
          '(it is not told apart from a store that does not exist, as a list of its items is not). ' +
          'Example: `GET /cxf/svc-core/storage/store?start=0&limit=100`.',
        querystring: StoreListQuerySchema,
        response: { 200: StoreListSchema, ...errorResponses(400, 401, 500) },
      },
    },
    async (request) => o.service.listStores(request.principal, request.query.start, request.query.limit),
  );
}
