import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { QueryInteger } from '../../platform/http/schemas.js';

/** Store and item ids: 1..100 of [A-Za-z0-9._-], not `.` or `..` (100: Fastify's default maxParamLength). */
export const ID_MAX_LENGTH = 100;
const IdSchema = (description: string) =>
  Type.String({ minLength: 1, maxLength: ID_MAX_LENGTH, pattern: '^(?!\\.\\.?$)[A-Za-z0-9._-]+$', description });

export const StoreParamsSchema = Type.Object({ storeId: IdSchema('Id of the store') });
export const ItemParamsSchema = Type.Object({
  storeId: IdSchema('Id of the store'),
  itemId: IdSchema('Id of the item'),
});
export type StoreParams = Static<typeof StoreParamsSchema>;
export type ItemParams = Static<typeof ItemParamsSchema>;

/** `type: [x, 'null']` rather than a union: AJV's type coercion would turn null into "" inside anyOf. */
const Nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });

const PrincipalName = Type.String({ minLength: 1, maxLength: 256 });
const PrincipalList = Type.Array(PrincipalName, { maxItems: 256 });

export const RestrictionSchema = Type.Object(
  {
    user: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
    organisations: Type.Optional(PrincipalList),
    roles: Type.Optional(PrincipalList),
    rights: Type.Optional(PrincipalList),
  },
  { description: 'Who has the access; at least one sub-element must be set. With user set, the lists are not saved.' },
);
export type Restriction = Static<typeof RestrictionSchema>;

/**
 * A store item as written. Everything is optional here so that a missing mandatory field answers 406
 * (spec) from the service rather than 400 from validation; unknown root fields go into customFields.
 */
export const StoreItemBodySchema = Type.Object(
  {
    id: Type.Optional(Type.Unknown({ description: 'Ignored: the service sets the id' })),
    moduleId: Type.Optional(Nullable(Type.String())),
    moduleInstanceId: Type.Optional(Nullable(Type.String())),
    name: Type.Optional(Nullable(Type.String())),
    value: Type.Optional(Type.Unknown({ description: 'Any JSON; mandatory' })),
    favorite: Type.Optional(Nullable(Type.Boolean())),
    readRestriction: Type.Optional(RestrictionSchema),
    writeRestriction: Type.Optional(RestrictionSchema),
    customFields: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
  },
  {
    additionalProperties: true,
    description: 'A store item; value, readRestriction and writeRestriction are mandatory',
  },
);
export type StoreItemBody = Static<typeof StoreItemBodySchema> & Record<string, unknown>;

const RestrictionOutSchema = Type.Object({
  user: Type.Optional(Type.String()),
  organisations: Type.Optional(Type.Array(Type.String())),
  roles: Type.Optional(Type.Array(Type.String())),
  rights: Type.Optional(Type.Array(Type.String())),
});

export const StoreItemSchema = Type.Object(
  {
    id: Type.String(),
    moduleId: Nullable(Type.String()),
    moduleInstanceId: Nullable(Type.String()),
    name: Nullable(Type.String()),
    value: Type.Unknown(),
    favorite: Type.Boolean(),
    readRestriction: RestrictionOutSchema,
    writeRestriction: RestrictionOutSchema,
    customFields: Type.Record(Type.String(), Type.Unknown()),
    createdOn: Type.String({ description: 'ISO 8601 UTC' }),
    createdBy: Type.String({ description: 'Login name' }),
    updatedOn: Type.String({ description: 'ISO 8601 UTC' }),
    updatedBy: Type.String({ description: 'Login name' }),
  },
  { description: 'A store item as read' },
);
export type StoreItem = Static<typeof StoreItemSchema>;

export const CreatedItemSchema = Type.Object({ id: Type.String() });

export const MAX_LIMIT = 10000;
const Text = (description: string) => Type.Optional(Type.String({ maxLength: 8192, description }));

export const ListQuerySchema = Type.Object(
  {
    start: QueryInteger({ default: 0, description: 'First record to read' }),
    limit: QueryInteger({ default: 1000, description: `Number of records; above ${MAX_LIMIT} is cut to ${MAX_LIMIT}` }),
    query: Text('Lucene query-string syntax, e.g. value.status:open'),
    filter: Text('JSON array of {property, operator, value, source, invert}'),
    sort: Text('field|ASC or field|DESC, comma-separated'),
    timezoneName: Text('IANA zone for dates without a zone in range filters; wins over timezoneOffset'),
    timezoneOffset: Text('Offset such as GMT+2 or +02:00'),
  },
  { additionalProperties: true },
);
export type ListQuery = Static<typeof ListQuerySchema>;

export const ItemListSchema = Type.Object({ total: Type.Integer(), items: Type.Array(StoreItemSchema) });

export const STORE_LIST_MAX_LIMIT = 1000;

export const StoreListQuerySchema = Type.Object({
  start: QueryInteger({ default: 0, description: 'First store to answer (stores are ordered by id)' }),
  limit: QueryInteger({
    minimum: 1,
    maximum: STORE_LIST_MAX_LIMIT,
    default: 100,
    description: `Number of stores, 1..${STORE_LIST_MAX_LIMIT}`,
  }),
});
export type StoreListQuery = Static<typeof StoreListQuerySchema>;

export const StoreListSchema = Type.Object(
  {
    total: Type.Integer({ description: 'Stores in which the caller may read at least one item' }),
    stores: Type.Array(
      Type.Object({
        storeId: Type.String(),
        readableItems: Type.Integer({ description: 'Items of the store the caller may read' }),
      }),
    ),
  },
  {
    description: "The stores of the caller's tenant in which it may read items, by id, with how many",
    examples: [
      {
        total: 2,
        stores: [
          { storeId: 'invoices', readableItems: 1204 },
          { storeId: 'tasks', readableItems: 7 },
        ],
      },
    ],
  },
);
export type StoreList = Static<typeof StoreListSchema>;

export const StoreStreamQuerySchema = Type.Object({
  /** For clients that cannot set the Last-Event-ID header (EventSource polyfills); the header wins. */
  lastEventId: Type.Optional(
    Type.String({ maxLength: 64, description: 'As the Last-Event-ID header; the header wins' }),
  ),
});
export type StoreStreamQuery = Static<typeof StoreStreamQuerySchema>;
