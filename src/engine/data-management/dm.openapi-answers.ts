// The data management protocol's answers in the OpenAPI document (dm.openapi.ts): the shared documents (template,
// asset, tree node) and the parts every method's answer is made of.
import { Type, type TSchema } from '@sinclair/typebox';
import { componentRef } from '../../platform/http/openapi.js';
import { AttributeSchema, ActionSchema as TemplateActionSchema } from './templates/template.schema.js';

export const P = 'DataManagement';
export const ref = (name: string) => componentRef(`${P}.${name}`);

/** An object schema with `properties` replaced where the method checks a part itself (typed there, opaque here). */
export function refined(schema: TSchema, properties: Record<string, TSchema>, description: string): TSchema {
  return { ...schema, properties: { ...schema.properties, ...properties }, description } as TSchema;
}

export const AttributeDoc = Type.Object(
  {
    ...AttributeSchema.properties,
    versioned: Type.Boolean(),
    required: Type.Boolean(),
    hidden: Type.Boolean(),
  },
  { additionalProperties: false, description: 'An attribute of a template as answered (its defaults filled in)' },
);
export const TemplateDoc = Type.Object(
  {
    id: Type.Integer(),
    customId: Type.String(),
    name: Type.String(),
    description: Type.String(),
    attributes: Type.Array(ref('AttributeAnswer')),
    actions: Type.Array(TemplateActionSchema),
    childTemplates: Type.Array(Type.String()),
    restricted: Type.Boolean(),
    roles: Type.Array(Type.String()),
  },
  { additionalProperties: false, description: 'A template as answered' },
);
export const Named = Type.Object({ id: Type.Integer(), customId: Type.String() }, { additionalProperties: false });
export const Version = {
  updatedOn: Type.String({ format: 'date-time' }),
  updatedBy: Type.String(),
  comment: Type.String(),
  active: Type.Boolean(),
};
export const Attributes = Type.Record(Type.String(), Type.Unknown());
export const AssetFields = {
  id: Type.Integer(),
  customId: Type.Union([Type.String(), Type.Null()]),
  template: Named,
  displayName: Type.String(),
  description: Type.String(),
  parentId: Type.Union([Type.Integer(), Type.Null()]),
  attributes: Type.Optional(Attributes),
  unversionedAttributes: Type.Optional(Attributes),
  version: Type.Object(Version, { additionalProperties: false }),
  createdOn: Type.String({ format: 'date-time' }),
  createdBy: Type.String(),
};
export const AssetDoc = Type.Object(
  {
    ...AssetFields,
    allVersions: Type.Optional(
      Type.Array(
        Type.Object(
          {
            ...Version,
            displayName: Type.Optional(Type.String()),
            description: Type.Optional(Type.String()),
            attributes: Type.Optional(Attributes),
          },
          { additionalProperties: false },
        ),
        { description: 'With `other`: every version, the one `other` names in full' },
      ),
    ),
    joinedChildAssetIds: Type.Optional(Type.Array(Type.Integer(), { description: 'verbosity 1' })),
    childAssets: Type.Optional(
      Type.Array(Type.Object(AssetFields, { additionalProperties: false }), { description: 'verbosity 2' }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'An asset as answered at one version. The attributes are left out at query verbosity 0; the children are added at verbosity 1 (ids) and 2 (answers)',
  },
);
export const TreeNode = Type.Object(
  {
    id: Type.Integer(),
    text: Type.String({ description: 'displayName, else customId, else the id' }),
    customId: Type.Union([Type.String(), Type.Null()]),
    template: Named,
    parentId: Type.Union([Type.Integer(), Type.Null()]),
    leaf: Type.Boolean(),
    childCount: Type.Integer(),
    expanded: Type.Boolean(),
  },
  { additionalProperties: false, description: 'An asset as a tree node (query verbosity 5)' },
);
export const ActionResult = {
  message: Type.Optional(Type.String()),
  download: Type.Optional(
    Type.Unknown({
      description:
        "The handler's file: an export answers {fileName, mediaType, data (base64)}; a webhook answers what it gives",
    }),
  ),
  custom: Type.Optional(Type.Unknown()),
  refresh: Type.Optional(Type.Boolean()),
};
export const Empty = Type.Object({}, { additionalProperties: false, description: 'Done; nothing to answer' });

/** The shared answer parts, named in the document. */
export const SHARED: Record<string, TSchema> = {
  Template: TemplateDoc,
  AttributeAnswer: AttributeDoc,
  Asset: AssetDoc,
  AssetTreeNode: TreeNode,
};

export interface MethodDocument {
  summary: string;
  parameters: TSchema;
  answer: TSchema;
  example: { parameters: unknown; answer: unknown };
}
