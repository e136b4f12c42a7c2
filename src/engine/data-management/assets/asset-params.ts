// The parameters of the Asset methods: their schemas (checked by the dispatcher's compiled checks) and how they name
// assets, templates and versions.
import { Type } from '@sinclair/typebox';
import { FiltersSchema, SortersSchema } from '../dm-query.js';
import { DM_ERRORS } from '../dm.errors.js';
import { IdSchema, PagingSchema } from '../dm-numbers.js';
import { checkerOf } from '../method.js';
import type { TemplateRef } from '../templates/templates.repository.js';
import { AssetInputSchema, RefSchema, type AssetInput } from './asset.schema.js';
import type { AssetRef } from './assets.repository.js';

/** Assets an action runs for, at most. */
export const ACTION_ASSETS = 10_000;

const Designator = Type.String({ minLength: 1, maxLength: 64 });
const AssetRefParams = {
  id: Type.Optional(IdSchema),
  customId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  templateId: Type.Optional(IdSchema),
  templateCustomId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
};
const Write = {
  asset: Type.Optional(Type.Unknown()),
  versionComment: Type.Optional(Type.String({ maxLength: 10_000 })),
  requiredOverride: Type.Optional(Type.Boolean()),
  return: Type.Optional(Type.Boolean()),
  returnParameters: Type.Optional(Type.Unknown()),
};
// The parameter schemas are exported for the OpenAPI document (dm.openapi.ts), which names each method's.
/** `asset` is checked by checkAsset (AssetInputSchema), `returnParameters` by returnOptions (ReturnSchema). */
export const CreateSchema = Type.Object(
  { ...Write, templateId: AssetRefParams.templateId, templateCustomId: AssetRefParams.templateCustomId },
  { additionalProperties: false },
);
export const CreateParams = checkerOf(CreateSchema);
export const UpdateSchema = Type.Object(
  {
    ...Write,
    ...AssetRefParams,
    activationPolicy: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('ifHEADActive')]),
    ),
    onlyIfChanged: Type.Optional(Type.Boolean()),
    unversionedAttributesOnly: Type.Optional(Type.Boolean()),
    updatedOn: Type.Optional(Designator),
  },
  { additionalProperties: false },
);
export const UpdateParams = checkerOf(UpdateSchema);
export const DeleteSchema = Type.Object(
  { ...AssetRefParams, unlinkChildAssets: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export const DeleteParams = checkerOf(DeleteSchema);
const GetOptions = { withoutHiddenAttributes: Type.Optional(Type.Boolean()) };
export const GetSchema = Type.Object(
  {
    ...AssetRefParams,
    ...GetOptions,
    updatedOn: Type.Optional(Designator),
    other: Type.Optional(Designator),
    optional: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const GetParams = checkerOf(GetSchema);
/** The parameters of the get behind `return` (others, such as the get's id, are ignored: it reads the asset written). */
export const ReturnSchema = Type.Object({
  ...GetOptions,
  updatedOn: Type.Optional(Designator),
  other: Type.Optional(Designator),
});
const ReturnParameters = checkerOf(ReturnSchema);
/** What selects and shapes an asset's answer: get's `updatedOn`, `other` and `withoutHiddenAttributes`. */
export interface ReadOptions {
  updatedOn?: string;
  other?: string;
  withoutHiddenAttributes?: boolean;
}
const Verbosity = Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2), Type.Literal(5)]);
export const QuerySchema = Type.Object(
  {
    start: Type.Optional(PagingSchema),
    limit: Type.Optional(PagingSchema),
    filters: Type.Optional(FiltersSchema),
    sorters: Type.Optional(SortersSchema),
    sortMode: Type.Optional(
      Type.Union([Type.Literal(''), Type.Literal('ci'), Type.Literal('user'), Type.Literal('user_ci')]),
    ),
    verbosity: Type.Optional(Verbosity),
    withoutHiddenAttributes: Type.Optional(Type.Boolean()),
    withoutAttributeGroups: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50 })),
    restricted: Type.Optional(Type.Boolean()),
    getActions: Type.Optional(Type.Boolean()),
    getQueries: Type.Optional(Type.Boolean()),
    getUser: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const QueryParams = checkerOf(QuerySchema);
export const ActionSchema = Type.Object(
  {
    template: RefSchema,
    action: Type.Object({ key: Type.String({ minLength: 1, maxLength: 256 }) }),
    filters: Type.Optional(FiltersSchema),
    sorters: Type.Optional(SortersSchema),
    verbosity: Type.Optional(Verbosity),
    Parameters: Type.Optional(
      Type.Array(
        Type.Object({ key: Type.String({ minLength: 1, maxLength: 256 }), value: Type.Optional(Type.Unknown()) }),
        { maxItems: 1000 },
      ),
    ),
    columns: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 1000 })),
    custom: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export const ActionParams = checkerOf(ActionSchema);
export const SaveQuerySchema = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 256 }), query: Type.Record(Type.String(), Type.Unknown()) },
  { additionalProperties: false },
);
export const SaveQueryParams = checkerOf(SaveQuerySchema);
export const DeleteQuerySchema = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);
export const DeleteQueryParams = checkerOf(DeleteQuerySchema);
const isAssetInput = checkerOf(AssetInputSchema);

const invalidDate = (what: string, value: string) =>
  DM_ERRORS.invalidCall(`${what}: ${value.slice(0, 64)} is not HEAD, ACTIVE, PREVIOUS, NEXT or an updatedOn value`);

/** An updatedOn value as epoch milliseconds (ISO 8601; as answered, with milliseconds). */
export function parseUpdatedOn(value: string, what: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw invalidDate(what, value);
  return ms;
}

const DESIGNATORS = new Set(['HEAD', 'ACTIVE', 'PREVIOUS', 'NEXT']);

/**
 * `returnParameters` of create and update, checked before anything is written: an object of the get's parameters,
 * `updatedOn` HEAD, ACTIVE or an updatedOn value, `other` also PREVIOUS or NEXT; 400 naming the problem otherwise.
 */
export function returnOptions(value: unknown): ReadOptions {
  const rp = value ?? {};
  if (!ReturnParameters.Check(rp)) {
    const first = ReturnParameters.Errors(rp).First();
    throw DM_ERRORS.invalidCall(
      `returnParameters${first?.path ?? ''}: ${first?.message ?? 'invalid'} (the parameters of the get behind return: updatedOn, other, withoutHiddenAttributes)`,
      {
        path: `parameters/returnParameters${first?.path ?? ''}`,
      },
    );
  }
  if (rp.updatedOn === 'PREVIOUS' || rp.updatedOn === 'NEXT')
    throw DM_ERRORS.invalidCall('returnParameters/updatedOn: HEAD, ACTIVE or an updatedOn value', {
      path: 'parameters/returnParameters/updatedOn',
    });
  for (const [name, designator] of [
    ['updatedOn', rp.updatedOn],
    ['other', rp.other],
  ] as const) {
    if (designator !== undefined && !DESIGNATORS.has(designator))
      parseUpdatedOn(designator, `returnParameters/${name}`);
  }
  return rp;
}

/** The asset the parameters name: `id`, or `customId` with `templateId` or `templateCustomId`. */
export function refOf(
  p: { id?: number; customId?: string; templateId?: number; templateCustomId?: string },
  method: string,
): AssetRef {
  if (p.id !== undefined) return { id: p.id };
  if (p.customId !== undefined && p.templateId !== undefined) return { customId: p.customId, templateId: p.templateId };
  if (p.customId !== undefined && p.templateCustomId !== undefined)
    return { customId: p.customId, templateCustomId: p.templateCustomId };
  throw DM_ERRORS.invalidCall(`${method}: id, or customId with templateId or templateCustomId, is required`);
}

export function templateRefOf(r: { id?: number; customId?: string } | undefined): TemplateRef | undefined {
  if (r?.id !== undefined) return { id: r.id };
  if (r?.customId !== undefined) return { customId: r.customId };
  return undefined;
}

export function checkAsset(value: unknown, method: string): AssetInput {
  if (value === undefined) return {};
  if (!isAssetInput.Check(value)) {
    const first = isAssetInput.Errors(value).First();
    throw DM_ERRORS.invalidCall(`${method}: asset${first?.path ?? ''}: ${first?.message ?? 'invalid'}`, {
      path: `asset${first?.path ?? ''}`,
    });
  }
  return value;
}
