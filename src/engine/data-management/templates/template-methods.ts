import { Type, type Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import { DM_ERRORS } from '../dm.errors.js';
import { IdSchema, PagingSchema } from '../dm-numbers.js';
import type { DmTables } from '../dm.tables.js';
import { checkTemplate, templateDoc, withoutHidden } from './template-rules.js';
import type { Attribute } from './template.schema.js';
import { checkImage } from './template-image.js';
import { checkParameters, runAction, type ActionDefinition, type ActionWebhook } from '../actions/action-runner.js';
import { TEMPLATE_FIELDS, type TemplateRef, type TemplatesRepository } from './templates.repository.js';
import { callingOut, checkerOf, JsonText, parse, reading, uniquely, type Caller, type MethodTable } from '../method.js';
import { compileDmQuery, FiltersSchema, SortersSchema } from '../dm-query.js';

const Ref = { id: Type.Optional(IdSchema), customId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) };
// The parameter schemas are exported for the OpenAPI document (dm.openapi.ts), which names each method's.
/** `template` is checked by checkTemplate (TemplateInputSchema and the rules of template-rules.ts). */
export const WriteSchema = Type.Object(
  { template: Type.Unknown(), strict: Type.Optional(Type.Boolean()), return: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
const WriteParams = checkerOf(WriteSchema);
export const RefOnlySchema = Type.Object(Ref, { additionalProperties: false });
const DeleteParams = checkerOf(RefOnlySchema);
// An image is at most 128 KiB (template-image.ts), 174,764 base64 characters; line breaks in the text take the rest.
export const ImageSchema = Type.Object(
  { ...Ref, image: Type.String({ maxLength: 200_000, description: 'A PNG of 64 x 64 pixels, base64' }) },
  { additionalProperties: false },
);
const ImageParams = checkerOf(ImageSchema);
export const ActionSchema = Type.Object(
  {
    template: Type.Object(Ref),
    action: Type.Object({ key: Type.String({ minLength: 1, maxLength: 256 }) }),
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
const ActionParams = checkerOf(ActionSchema);
export const GetSchema = Type.Object(
  { ...Ref, optional: Type.Optional(Type.Boolean()), withoutHiddenAttributes: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
const GetParams = checkerOf(GetSchema);
export const QuerySchema = Type.Object(
  {
    start: Type.Optional(PagingSchema),
    limit: Type.Optional(PagingSchema),
    filters: Type.Optional(FiltersSchema),
    sorters: Type.Optional(SortersSchema),
    withoutHiddenAttributes: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const QueryParams = checkerOf(QuerySchema);

function refOf(p: { id?: number; customId?: string }, method: string): TemplateRef {
  if (p.id !== undefined) return { id: p.id };
  if (p.customId !== undefined) return { customId: p.customId };
  throw DM_ERRORS.invalidCall(`${method}: id or customId is required`);
}

const show = (ref: TemplateRef) => ('id' in ref ? `id ${ref.id}` : `customId ${ref.customId}`);

/** What templates need of assets (context Asset implements it). */
export interface TemplateAssets {
  hasAssets(db: Kysely<DmTables>, templateId: number): Promise<boolean>;
  /** A template's customId changed: its assets' answers and index rows name the new one. */
  renamed(db: Kysely<DmTables>, templateId: number, customId: string): Promise<void>;
  /** The template's assets (as answered, at most 10,000), for template actions such as export. */
  assets(db: Kysely<DmTables>, templateId: number): Promise<Array<Record<string, unknown>>>;
}

/** The methods of context Template (interface-spec, Data management API; decisions section 9). */
export function templateMethods(
  repo: TemplatesRepository,
  dialect: Dialect,
  webhooks: Map<string, ActionWebhook>,
  assets: TemplateAssets,
): MethodTable<Kysely<DmTables>> {
  /** The template and its template-scoped action named by the call (asset-scoped actions run in context Asset). */
  const actionOf = async (db: Kysely<DmTables>, p: Static<typeof ActionSchema>, caller: Caller, method: string) => {
    const ref = refOf(p.template, method);
    const current = await repo.find(db, ref);
    if (!current) throw DM_ERRORS.templateNotFound(show(ref));
    const doc = JSON.parse(current.doc) as {
      id: number;
      customId: string;
      actions: ActionDefinition[];
      attributes?: Attribute[];
      restricted?: boolean;
      roles?: string[];
    };
    // A restricted template's actions (which may read its assets) are for the engine users with one of its roles.
    if (doc.restricted && !(doc.roles ?? []).some((r) => caller.roles.includes(r)))
      throw DM_ERRORS.restricted(doc.customId, doc.roles ?? []);
    const action = doc.actions.find((a) => a.key === p.action.key);
    if (!action)
      throw DM_ERRORS.invalidCall(`${method}: template ${doc.customId} has no action ${p.action.key.slice(0, 100)}`);
    if (action.scope !== 'template')
      throw DM_ERRORS.invalidCall(`${method}: action ${action.key} runs on assets (context Asset)`);
    return { doc, action };
  };
  return {
    async create(db, parameters) {
      const p = parse(WriteParams, parameters, 'create');
      const t = checkTemplate(p.template, p.strict === true);
      const now = Date.now();
      return uniquely(
        dialect,
        async () => {
          const id = await repo.insert(db, t.customId, t.name ?? '', now);
          const doc = templateDoc(id, t);
          await repo.setDoc(db, id, t.customId, t.name ?? '', JSON.stringify(doc), doc.restricted === true, now);
          return p.return ? { template: doc } : {};
        },
        () => DM_ERRORS.customIdTaken(t.customId),
      );
    },
    async update(db, parameters) {
      const p = parse(WriteParams, parameters, 'update');
      const t = checkTemplate(p.template, p.strict === true);
      const ref = refOf(t, 'update');
      const current = await repo.find(db, ref);
      if (!current) throw DM_ERRORS.templateNotFound(show(ref));
      const doc = templateDoc(current.id, t);
      const previous = JSON.parse(current.doc) as { customId: string };
      return uniquely(
        dialect,
        async () => {
          await repo.setDoc(
            db,
            current.id,
            t.customId,
            t.name ?? '',
            JSON.stringify(doc),
            doc.restricted === true,
            Date.now(),
          );
          if (previous.customId !== t.customId) await assets.renamed(db, current.id, t.customId);
          return p.return ? { template: doc } : {};
        },
        () => DM_ERRORS.customIdTaken(t.customId),
      );
    },
    async delete(db, parameters) {
      const ref = refOf(parse(DeleteParams, parameters, 'delete'), 'delete');
      const current = await repo.find(db, ref);
      if (!current) throw DM_ERRORS.templateNotFound(show(ref));
      if (await assets.hasAssets(db, current.id)) throw DM_ERRORS.templateInUse(show(ref));
      await repo.delete(db, current.id);
      return {};
    },
    get: reading(async (db, parameters) => {
      const p = parse(GetParams, parameters, 'get');
      const ref = refOf(p, 'get');
      const current = await repo.find(db, ref);
      if (!current) {
        if (p.optional) return {};
        throw DM_ERRORS.templateNotFound(show(ref));
      }
      return new JsonText(
        `{"template":${p.withoutHiddenAttributes ? JSON.stringify(withoutHidden(JSON.parse(current.doc))) : current.doc}}`,
      );
    }),
    async getImage(db, parameters) {
      const ref = refOf(parse(DeleteParams, parameters, 'getImage'), 'getImage');
      const current = await repo.find(db, ref);
      if (!current) throw DM_ERRORS.templateNotFound(show(ref));
      const image = await repo.image(db, current.id);
      if (image === undefined) throw DM_ERRORS.imageNotFound(show(ref));
      return { image };
    },
    async setImage(db, parameters) {
      const p = parse(ImageParams, parameters, 'setImage');
      const ref = refOf(p, 'setImage');
      const image = checkImage(p.image);
      const current = await repo.find(db, ref);
      if (!current) throw DM_ERRORS.templateNotFound(show(ref));
      await repo.setImage(db, current.id, image);
      return {};
    },
    async getActionAttributes(db, parameters, caller) {
      const { action } = await actionOf(
        db,
        parse(ActionParams, parameters, 'getActionAttributes'),
        caller,
        'getActionAttributes',
      );
      return { attributes: action.parameters ?? [] };
    },
    executeAction: callingOut(async (db, parameters, caller) => {
      const p = parse(ActionParams, parameters, 'executeAction');
      const { doc, action } = await actionOf(db, p, caller, 'executeAction');
      const values = checkParameters(action.parameters ?? [], p.Parameters ?? []);
      return {
        ...(await runAction(
          action.handler,
          webhooks,
          {
            context: 'Template',
            template: { id: doc.id, customId: doc.customId },
            action: action.key,
            parameters: values,
            ...(p.columns !== undefined ? { columns: p.columns } : {}),
            ...(p.custom !== undefined ? { custom: p.custom } : {}),
          },
          async () => ({ assets: await assets.assets(db, doc.id), attributes: doc.attributes ?? [] }),
        )),
      };
    }),
    query: reading(async (db, parameters) => {
      const p = parse(QueryParams, parameters, 'query');
      const q = compileDmQuery(
        dialect,
        (property) => (Object.hasOwn(TEMPLATE_FIELDS, property) ? TEMPLATE_FIELDS[property] : null),
        Object.keys(TEMPLATE_FIELDS).join(', '),
        'query',
        p.filters,
        p.sorters,
      );
      const { total, rows } = await repo.query(db, q, p.start ?? 0, Math.min(p.limit ?? 1000, 10_000));
      const templates = p.withoutHiddenAttributes
        ? rows.map((r) => JSON.stringify(withoutHidden(JSON.parse(r.doc))))
        : rows.map((r) => r.doc);
      return new JsonText(`{"total":${total},"templates":[${templates.join(',')}]}`);
    }),
  };
}
