// The methods of context Asset (interface-spec, Data management API; decisions section 9): assets with versions
// (HEAD, ACTIVE, updatedOn), activation, child assets, queries over the ACTIVE versions through the value index
// (platform/query), actions over selected assets, and the caller's saved queries. An asset's versions and state:
// asset-versions.ts; `update`: asset-update.ts.
import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import { checkParameters, runAction, type ActionWebhook } from '../actions/action-runner.js';
import type { Filters } from '../dm-query.js';
import { DM_ERRORS } from '../dm.errors.js';
import type { DmTables } from '../dm.tables.js';
import { callingOut, JsonText, parse, reading, uniquely, type Caller, type MethodTable } from '../method.js';
import type { TemplatesRepository } from '../templates/templates.repository.js';
import type { VersionData } from './asset.schema.js';
import { assetDoc, mergeAttributes } from './asset-rules.js';
import type { AssetsRepository } from './assets.repository.js';
import { AssetReads } from './asset-query.js';
import { GroupPatterns } from './group-patterns.js';
import {
  ACTION_ASSETS,
  ActionParams,
  type ActionSchema,
  CreateParams,
  DeleteParams,
  DeleteQueryParams,
  GetParams,
  QueryParams,
  SaveQueryParams,
  checkAsset,
  refOf,
  returnOptions,
  templateRefOf,
} from './asset-params.js';
import { TemplateDocs } from './asset-templates.js';
import { assetUpdate } from './asset-update.js';
import { AssetVersions, assetNotFound, customIdTaken } from './asset-versions.js';
import type { SavedQueriesRepository } from './saved-queries.repository.js';

type Db = Kysely<DmTables>;

export interface AssetMethodsOptions {
  inactiveVersions: boolean;
  webhooks: Map<string, ActionWebhook>;
}

export function assetMethods(
  repo: AssetsRepository,
  templates: TemplatesRepository,
  queries: SavedQueriesRepository,
  dialect: Dialect,
  options: AssetMethodsOptions,
): MethodTable<Db> {
  const docs = new TemplateDocs(templates);
  const { templateOf, usable } = docs;
  const versions = new AssetVersions(repo, docs);
  const { assetOf, checkParent, returned } = versions;
  const reads = new AssetReads(repo, templates, dialect, templateOf);
  const { select, answers } = reads;
  /** The template and one of its actions of the scope. */
  const actionOf = async (db: Db, p: Static<typeof ActionSchema>, caller: Caller, method: string) => {
    const ref = templateRefOf(p.template);
    if (!ref) throw DM_ERRORS.invalidCall(`${method}: template/id or template/customId is required`);
    const template = await templateOf(db, ref);
    usable(template, caller);
    const action = template.actions.find((a) => a.key === p.action.key);
    if (!action)
      throw DM_ERRORS.invalidCall(
        `${method}: template ${template.customId} has no action ${p.action.key.slice(0, 100)}`,
      );
    if (action.scope !== 'asset')
      throw DM_ERRORS.invalidCall(`${method}: action ${action.key} runs on the template (context Template)`);
    return { template, action };
  };

  return {
    async create(db, parameters, caller) {
      const p = parse(CreateParams, parameters, 'create');
      const a = checkAsset(p.asset, 'create');
      const read = p.return ? returnOptions(p.returnParameters) : {};
      const tref =
        templateRefOf(a.template) ??
        templateRefOf(a.version?.template) ??
        (p.templateId !== undefined
          ? { id: p.templateId }
          : p.templateCustomId !== undefined
            ? { customId: p.templateCustomId }
            : undefined);
      if (!tref)
        throw DM_ERRORS.invalidCall(
          'create: the template is required (asset/template, templateId or templateCustomId)',
        );
      const template = await templateOf(db, tref);
      usable(template, caller);
      const parentId = a.parentId ?? null;
      await checkParent(db, parentId, template);
      const { attributes, unversioned } = mergeAttributes(
        template,
        { attributes: {}, unversioned: {} },
        { attributes: a.attributes, unversioned: a.unversionedAttributes },
        { requiredOverride: p.requiredOverride === true, defaults: true },
      );
      const now = Date.now();
      const customId = a.customId ?? null;
      const data: VersionData = { displayName: a.displayName ?? '', description: a.description ?? '', attributes };
      const version = { updatedOn: now, updatedBy: caller.name, comment: p.versionComment ?? '' };
      const doc = assetDoc({
        id: 0,
        customId,
        template: { id: template.id, customId: template.customId },
        parentId,
        data,
        unversioned,
        version: { ...version, active: true },
        createdOn: now,
        createdBy: caller.name,
      });
      const seq = await uniquely(
        dialect,
        () =>
          repo.insert(db, {
            templateId: template.id,
            customId,
            parentId,
            on: now,
            by: caller.name,
            doc,
            version: { ...version, data },
          }),
        customIdTaken(customId),
      );
      return { asset: p.return ? await returned(db, seq, read) : { id: seq } };
    },

    update: assetUpdate(repo, docs, versions, dialect, options.inactiveVersions),

    async delete(db, parameters, caller) {
      const p = parse(DeleteParams, parameters, 'delete');
      const row = await assetOf(db, refOf(p, 'delete'));
      usable(await templateOf(db, { id: row.templateId }), caller);
      const children = (await repo.childrenOf(db, [row.seq])).get(row.seq) ?? [];
      if (children.length > 0 && p.unlinkChildAssets !== true) {
        throw DM_ERRORS.conflict(
          `Asset ${row.seq} has ${children.length} child asset(s); delete them first or set unlinkChildAssets`,
          { asset: row.seq, childAssets: children.slice(0, 100) },
        );
      }
      for (const childId of children) {
        const child = await assetOf(db, { id: childId });
        const doc = JSON.parse(child.doc) as Record<string, unknown>;
        await repo.setState(
          db,
          child.seq,
          {
            customId: child.customId,
            parentId: null,
            headOn: child.headOn,
            activeOn: child.activeOn,
            doc: { ...doc, parentId: null },
          },
          { customId: child.customId, parentId: child.parentId, doc },
          undefined,
          child.rev,
        );
      }
      await repo.delete(db, row.seq);
      return {};
    },

    get: reading(async (db, parameters, caller) => {
      const p = parse(GetParams, parameters, 'get');
      const ref = refOf(p, 'get');
      const row = await repo.find(db, ref);
      if (!row) {
        if (p.optional) return {};
        throw assetNotFound(ref);
      }
      const needsTemplate = p.withoutHiddenAttributes === true || row.restricted;
      const template = needsTemplate ? await templateOf(db, { id: row.templateId }) : undefined;
      if (template) usable(template, caller);
      // The common case, the ACTIVE version as stored: its text spliced into the answer.
      if ((p.updatedOn ?? 'ACTIVE') === 'ACTIVE' && p.other === undefined && !p.withoutHiddenAttributes)
        return new JsonText(`{"asset":${row.doc}}`);
      const asset = await versions.readAsset(db, row, p, template, 'get');
      if (!asset) {
        if (p.optional) return {};
        throw DM_ERRORS.versionNotFound(`${p.updatedOn ?? 'ACTIVE'} of asset ${row.seq}`);
      }
      return { asset };
    }),

    query: reading(async (db, parameters, caller, budget) => {
      const p = parse(QueryParams, parameters, 'query');
      const groups = GroupPatterns.compile(p.withoutAttributeGroups, 'query', budget);
      const verbosity = p.verbosity ?? 0;
      const page = await select(db, caller, p, 'query', AssetReads.pageDocsFor(verbosity));
      const { total, ids } = page;
      const assets = await answers(db, ids, { verbosity, hidden: p.withoutHiddenAttributes === true, groups, page });
      const parts = [`"total":${total}`, `"assets":[${assets.join(',')}]`];
      if (p.getQueries) parts.push(`"queries":${JSON.stringify(await queries.list(db, caller.name))}`);
      if (p.getUser)
        parts.push(`"user":${JSON.stringify({ name: caller.name, groups: caller.groups, roles: caller.roles })}`);
      if (p.getActions) {
        const docs = await repo.docs(db, ids);
        const templateIds = [
          ...new Set([...docs.values()].map((d) => (JSON.parse(d) as { template: { id: number } }).template.id)),
        ];
        const actions = [];
        for (const id of templateIds) {
          const t = await templateOf(db, { id });
          for (const a of t.actions)
            if (a.scope === 'asset')
              actions.push({
                template: { id: t.id, customId: t.customId },
                key: a.key,
                label: a.label ?? a.key,
                parameters: a.parameters ?? [],
              });
        }
        parts.push(`"actions":${JSON.stringify(actions)}`);
      }
      return new JsonText(`{${parts.join(',')}}`);
    }),

    getActionAttributes: reading(async (db, parameters, caller) => {
      const p = parse(ActionParams, parameters, 'getActionAttributes');
      const { action } = await actionOf(db, p, caller, 'getActionAttributes');
      return { attributes: action.parameters ?? [] };
    }),

    executeAction: callingOut(async (db, parameters, caller) => {
      const p = parse(ActionParams, parameters, 'executeAction');
      const { template, action } = await actionOf(db, p, caller, 'executeAction');
      const values = checkParameters(action.parameters ?? [], p.Parameters ?? []);
      // The assets of the template the filters select (every one without filters).
      const filters: Filters = [...(p.filters ?? []), { property: 'template.id', operator: 'eq', value: template.id }];
      const { total, ids } = await select(
        db,
        caller,
        { filters, sorters: p.sorters, restricted: true, limit: ACTION_ASSETS },
        'executeAction',
      );
      const result = await runAction(
        action.handler,
        options.webhooks,
        {
          context: 'Asset',
          template: { id: template.id, customId: template.customId },
          action: action.key,
          parameters: values,
          total,
          ...(p.columns !== undefined ? { columns: p.columns } : {}),
          ...(p.custom !== undefined ? { custom: p.custom } : {}),
        },
        async () => ({
          assets: (await answers(db, ids, { verbosity: p.verbosity ?? 1, hidden: false })).map((t) => JSON.parse(t)),
          attributes: template.attributes,
        }),
      );
      return { total, ...result };
    }),

    /** Saves a query of the caller under a name (replacing one of that name); `getQueries` lists them. */
    async saveQuery(db, parameters, caller) {
      const p = parse(SaveQueryParams, parameters, 'saveQuery');
      if (JSON.stringify(p.query).length > 100_000)
        throw DM_ERRORS.invalidCall('saveQuery: a query is at most 100,000 characters of JSON');
      await queries.save(db, caller.name, p.name, p.query, Date.now());
      return {};
    },

    async deleteQuery(db, parameters, caller) {
      const p = parse(DeleteQueryParams, parameters, 'deleteQuery');
      if (!(await queries.remove(db, caller.name, p.name))) {
        throw DM_ERRORS.queryNotFound(p.name);
      }
      return {};
    },
  };
}
