import { Type, type Static } from '@sinclair/typebox';
import { IdSchema } from '../dm-numbers.js';

export const ATTRIBUTE_TYPES = [
  'string',
  'text',
  'integer',
  'number',
  'boolean',
  'date',
  'dateTime',
  'enum',
  'json',
] as const;
/** XML 1.0 fifth edition, section 2.3, NameStartChar without ':' (a QName's parts are NCNames). */
const NAME_START =
  'A-Z_a-z\\u{C0}-\\u{D6}\\u{D8}-\\u{F6}\\u{F8}-\\u{2FF}\\u{370}-\\u{37D}\\u{37F}-\\u{1FFF}\\u{200C}-\\u{200D}\\u{2070}-\\u{218F}' +
  '\\u{2C00}-\\u{2FEF}\\u{3001}-\\u{D7FF}\\u{F900}-\\u{FDCF}\\u{FDF0}-\\u{FFFD}\\u{10000}-\\u{EFFFF}';
/** NameChar without ':': NameStartChar, "-", ".", digits, middle dot, combining marks and the two ties. */
const NAME_CHAR = `${NAME_START}\\-.0-9\\u{B7}\\u{300}-\\u{36F}\\u{203F}-\\u{2040}`;
const NCNAME = `[${NAME_START}][${NAME_CHAR}]*`;
/**
 * An XML QName (decisions section 9): `prefix:local` or `local`, each part a Name of XML 1.0 fifth edition without
 * ':' (`grüße`, `Ω:λ`, `a·b`). ':' is in neither class, so the optional prefix cannot backtrack.
 */
export const QNAME = new RegExp(`^(?:${NCNAME}:)?${NCNAME}$`, 'u');

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
