import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { answer, errorResponses, QueryInteger } from '../../../platform/http/schemas.js';
import { sendJsonText } from '../../../platform/http/json-text.js';
import type { RestContext } from '../rest.context.js';

const UserTypeQuery = {
  userType: Type.Optional(
    Type.String({
      description: 'processEngineUser or processUser (decisions section 10); another value or none: 401',
      examples: ['processEngineUser'],
    }),
  ),
};
const ListQuery = Type.Object({
  ...UserTypeQuery,
  start: QueryInteger({ default: 0 }),
  limit: QueryInteger({ default: 1000, description: 'cut to 10000' }),
});
const CreateQuery = Type.Object(UserTypeQuery);
const ItemBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 1000 }),
    roles: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 1000 }),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'Review order 42', roles: ['clerk'], data: { orderId: 42 } }],
  },
);
const ITEM_EXAMPLE = {
  id: '7d0c4a52-0a7e-4c5b-8f5e-2b1d3c4e5f60',
  name: 'Review order 42',
  roles: ['clerk'],
  data: { orderId: 42 },
  createdOn: '2026-11-27T07:04:34.357Z',
};
const Item = Type.Object({
  id: Type.String(),
  name: Type.String(),
  roles: Type.Array(Type.String()),
  data: Type.Record(Type.String(), Type.Unknown()),
  createdOn: Type.String(),
});
const security: Array<Record<string, string[]>> = [{ basic: [] }, { processUserToken: [] }];

export function restRoutes(app: FastifyInstance, ctx: RestContext): void {
  for (const [path, kind] of [
    ['/tasks', 'task'],
    ['/reports', 'report'],
  ] as const) {
    app.get<{ Querystring: Static<typeof ListQuery> }>(
      path,
      {
        schema: {
          tags: ['engine'],
          summary: `The ${kind}s the caller may see: a process user those sharing a role with it ([] when none), a process-engine user all`,
          security,
          querystring: ListQuery,
          response: {
            200: answer(Type.Array(Item), `A page of the ${kind}s`, [ITEM_EXAMPLE]),
            ...errorResponses(400, 401, 429, 503),
          },
        },
      },
      async (request, reply) =>
        sendJsonText(reply, await ctx.items.list(request.restCaller, kind, request.query.start, request.query.limit)),
    );
    app.post<{ Querystring: Static<typeof CreateQuery>; Body: Static<typeof ItemBody> }>(
      path,
      {
        schema: {
          tags: ['engine'],
          summary: `Creates a ${kind} shared with the given roles (process-engine users only)`,
          security,
          querystring: CreateQuery,
          body: ItemBody,
          response: {
            200: answer(Item, `The ${kind} as stored`, ITEM_EXAMPLE),
            ...errorResponses(400, 401, 403, 413, 415, 429),
          },
        },
      },
      async (request, reply) => sendJsonText(reply, await ctx.items.create(request.restCaller, kind, request.body)),
    );
  }
  app.get(
    '/whoami',
    {
      schema: {
        tags: ['engine'],
        summary: 'The caller as the credential rules established it',
        security,
        querystring: CreateQuery,
        response: {
          200: answer(
            Type.Object({ name: Type.String(), userType: Type.String(), roles: Type.Array(Type.String()) }),
            'The caller',
            { name: 'engine', userType: 'processEngineUser', roles: [] },
          ),
          ...errorResponses(401, 429, 503),
        },
      },
    },
    async (request) => request.restCaller,
  );
}
