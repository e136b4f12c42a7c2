import { Type, type Static } from '@sinclair/typebox';
import { IdSchema } from '../dm-numbers.js';

export const ATTRIBUTE_TYPES = ['string', 'text', 'integer', 'number', 'boolean', 'date', 'dateTime', 'enum', 'json'] as const;
/** An XML QName: `prefix:local` or `local`. */
export const QNAME = /^(?:[A-Za-z_][A-Za-z0-9_.-]*:)?[A-Za-z_][A-Za-z0-9_.-]*$/;

export const AttributeSchema = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 256 }),
    type: Type.Union(ATTRIBUTE_TYPES.map((t) => Type.Literal(t))),
    label: Type.Optional(Type.String({ maxLength: 1000 })),
    required: Type.Optional(Type.Boolean()),
    hidden: Type.Optional(Type.Boolean()),
    versioned: Type.Optional(Type.Boolean()),
    group: Type.Optional(Type.String({ maxLength: 256 })),
    values: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 10_000 })),
    default: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

export const ActionSchema = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 256 }),
    label: Type.Optional(Type.String({ maxLength: 1000 })),
    scope: Type.Union([Type.Literal('asset'), Type.Literal('template')]),
    parameters: Type.Optional(Type.Array(AttributeSchema, { maxItems: 1000 })),
    handler: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

/** A template as written (decisions section 9); `id` is the server's (given on update to name the template). */
export const TemplateInputSchema = Type.Object(
  {
    id: Type.Optional(IdSchema),
    customId: Type.String({ minLength: 1, maxLength: 256 }),
    name: Type.Optional(Type.String({ maxLength: 1000 })),
    description: Type.Optional(Type.String({ maxLength: 100_000 })),
    attributes: Type.Optional(Type.Array(AttributeSchema, { maxItems: 10_000 })),
    actions: Type.Optional(Type.Array(ActionSchema, { maxItems: 1000 })),
    childTemplates: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 10_000 })),
    restricted: Type.Optional(Type.Boolean()),
    roles: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 1000 })),
  },
  { additionalProperties: false },
);
export type TemplateInput = Static<typeof TemplateInputSchema>;
export type Attribute = Static<typeof AttributeSchema>;
