import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import {
  ExportQuerySchema,
  ITEM_EXAMPLE,
  StoreItemSchema,
  StoreParamsSchema,
  type ExportQuery,
  type StoreParams,
} from '../storage.schemas.js';
import type { StorageContext } from '../storage.context.js';

const CONTENT_TYPES = { json: 'application/json; charset=utf-8', csv: 'text/csv; charset=utf-8' } as const;

/** An export of the items the caller may read, streamed: never the whole result in memory. */
export function exportStoreRoute(app: FastifyInstance, o: StorageContext): void {
  app.get<{ Params: StoreParams; Querystring: ExportQuery }>(
    `${o.prefix}/:storeId/export`,
    {
      schema: {
        tags: ['storage'],
        summary: 'Export the items of a store the caller may read, as JSON or CSV, with the list parameters',
        description:
          'Takes `query`, `filter`, `sort` and the time zone as the list read does (no paging: every match). ' +
          '`format=json` answers an array of items as a list answers them; `format=csv` one row per item (format in ' +
          'docs/api/storage.md). Written as it is read, a page at a time, as fast as the client takes it. ' +
          'Example: `GET /cxf/svc-core/storage/store/tasks/export?format=csv&query=value.status:open`.',
        params: StoreParamsSchema,
        querystring: ExportQuerySchema,
        response: {
          200: answer(
            Type.Array(StoreItemSchema),
            'format=json: an array of the items as a list answers them; format=csv: text/csv, one row per item ' +
              '(docs/api/storage.md)',
            [ITEM_EXAMPLE],
          ),
          ...errorResponses(400, 401, 500),
        },
      },
    },
    async (request, reply) => {
      const { storeId } = request.params;
      const { format } = request.query;
      const text = await o.service.export(request.principal, storeId, request.query, o.exportPageSize);
      reply
        .header('content-type', CONTENT_TYPES[format])
        .header('content-disposition', `attachment; filename="${storeId}.${format}"`)
        .header('cache-control', 'no-store');
      // One chunk (a page) waits at most: the next page is read only when the client has taken the last.
      return reply.send(Readable.from(text, { objectMode: true, highWaterMark: 1 }));
    },
  );
}
