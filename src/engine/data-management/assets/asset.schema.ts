import { Type, type Static } from '@sinclair/typebox';
import { IdSchema } from '../dm-numbers.js';

export const RefSchema = Type.Object({
  id: Type.Optional(IdSchema),
  customId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
});

/**
 * An asset as written (decisions section 9). The fields an asset is answered with but that the server keeps
 * (`version`, `createdOn`, `createdBy`, `allVersions`, ...) are accepted and ignored, so an answer can be sent back.
 */
export const AssetInputSchema = Type.Object(
  {
    id: Type.Optional(IdSchema),
    customId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    template: Type.Optional(RefSchema),
    displayName: Type.Optional(Type.String({ maxLength: 1000 })),
    description: Type.Optional(Type.String({ maxLength: 100_000 })),
    parentId: Type.Optional(Type.Union([IdSchema, Type.Null()])),
    attributes: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.Unknown())),
    unversionedAttributes: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.Unknown())),
    version: Type.Optional(Type.Object({ template: Type.Optional(RefSchema) })),
    createdOn: Type.Optional(Type.Unknown()),
    createdBy: Type.Optional(Type.Unknown()),
    allVersions: Type.Optional(Type.Unknown()),
    joinedChildAssetIds: Type.Optional(Type.Unknown()),
    childAssets: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type AssetInput = Static<typeof AssetInputSchema>;

/** What a version holds: the versioned fields of the asset. */
export interface VersionData {
  displayName: string;
  description: string;
  attributes: Record<string, unknown>;
}

/** The asset's row as read. */
export interface AssetRow {
  seq: number;
  templateId: number;
  customId: string | null;
  parentId: number | null;
  headOn: number;
  activeOn: number;
  createdOn: number;
  createdBy: string;
  /** Whether its template is restricted (only callers with one of its roles may use the asset). */
  restricted: boolean;
  /** The ACTIVE version's answer, as JSON text. */
  doc: string;
  /** The row's write counter as read (a guarded write names it). */
  rev: number;
  /** Its template's stored text, when the lookup read it (inside transactions). */
  templateDoc?: string;
}

/** A version's row as read. */
export interface VersionRow {
  updatedOn: number;
  updatedBy: string;
  comment: string;
  data: VersionData;
}
