// The methods of context Asset (interface-spec, Data management API; decisions section 9): assets with versions
// (HEAD, ACTIVE, updatedOn), activation, child assets, queries over the ACTIVE versions through the value index
// (platform/query), actions over selected assets, and the caller's saved queries.
import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import { checkParameters, runAction, type ActionWebhook } from '../actions/action-runner.js';
import type { Filters } from '../dm-query.js';
import { DM_ERRORS } from '../dm.errors.js';
import type { DmTables } from '../dm.tables.js';
import {
  callingOut,
  guardedWrite,
  JsonText,
  parse,
  reading,
  uniquely,
  type Caller,
  type MethodTable,
} from '../method.js';
import type { TemplateAssets } from '../templates/template-methods.js';
import type { TemplatesRepository } from '../templates/templates.repository.js';
import type { AssetRow, VersionData } from './asset.schema.js';
import {
  activatesNewVersion,
  assetDoc,
  mergeAttributes,
  sameData,
  withoutHidden,
  type ActivationPolicy,
  type TemplateDoc,
} from './asset-rules.js';
import type { AssetRef, AssetsRepository } from './assets.repository.js';
import { AssetReads } from './asset-query.js';
import { GroupPatterns } from './group-patterns.js';
import {
  ActionParams,
  type ActionSchema,
  CreateParams,
  DeleteParams,
  DeleteQueryParams,
  GetParams,
  QueryParams,
  SaveQueryParams,
  UpdateParams,
  checkAsset,
  parseUpdatedOn,
  refOf,
  returnOptions,
  templateRefOf,
  type ReadOptions,
} from './asset-params.js';
import { TemplateDocs } from './asset-templates.js';
import type { SavedQueriesRepository } from './saved-queries.repository.js';

type Db = Kysely<DmTables>;

/** Assets an action runs for, at most. */
const ACTION_ASSETS = 10_000;

export interface AssetMethodsOptions {
  inactiveVersions: boolean;
  webhooks: Map<string, ActionWebhook>;
}

/**
 * An update without `return` writes one guarded statement (AssetsRepository.setState) and reads nothing after it:
 * where each write is its own transaction it runs without one.
 */
const singleUpdate = (parameters: unknown): boolean =>
  typeof parameters === 'object' && parameters !== null && (parameters as { return?: unknown }).return !== true;

const showRef = (ref: AssetRef) =>
  'id' in ref
    ? `id ${ref.id}`
    : `customId ${ref.customId} of template ${'templateId' in ref ? ref.templateId : ref.templateCustomId}`;

export function assetMethods(
  repo: AssetsRepository,
  templates: TemplatesRepository,
  queries: SavedQueriesRepository,
  dialect: Dialect,
  options: AssetMethodsOptions,
): MethodTable<Db> {
  const docs = new TemplateDocs(templates);
  const { templateOf, usable } = docs;
  const templateOfAsset = docs.ofAsset;
  const reads = new AssetReads(repo, templates, dialect, templateOf);
  const { select, answers } = reads;
  const assetOf = async (db: Db, ref: AssetRef, forWrite = false): Promise<AssetRow> => {
    const row = await repo.find(db, ref, forWrite);
    if (!row) throw DM_ERRORS.assetNotFound(showRef(ref));
    return row;
  };
  const customIdTaken = (customId: string | null) => () =>
    DM_ERRORS.conflict(`customId ${String(customId).slice(0, 200)} is taken in this template`, {
      customId: String(customId).slice(0, 200),
    });
  /** Checks a parent: it exists, its template lists this one among its child templates, and it is not the asset or below it. */
  const checkParent = async (db: Db, parentId: number | null, template: TemplateDoc, self?: number) => {
    if (parentId === null) return;
    const parent = await repo.find(db, { id: parentId });
    if (!parent) throw DM_ERRORS.invalidCall(`asset/parentId: there is no asset ${parentId}`, { parentId });
    const parentTemplate = await templateOf(db, { id: parent.templateId });
    if (!parentTemplate.childTemplates.includes(template.customId)) {
      throw DM_ERRORS.invalidCall(
        `asset/parentId: template ${parentTemplate.customId} does not hold child assets of template ${template.customId}`,
        { parentId },
      );
    }
    // No cycles: walk up from the parent (bounded; the tree was checked on every write before).
    let at: AssetRow | undefined = parent;
    for (let depth = 0; at && self !== undefined; depth++) {
      if (at.seq === self) throw DM_ERRORS.invalidCall('asset/parentId: an asset cannot be below itself', { parentId });
      if (at.parentId === null || depth > 1000) break;
      at = await repo.find(db, { id: at.parentId });
    }
  };
  /** The answer of a version of the asset. */
  const docAt = async (db: Db, row: AssetRow, updatedOn: number): Promise<Record<string, unknown> | undefined> => {
    const active = JSON.parse(row.doc) as Record<string, unknown>;
    if (updatedOn === row.activeOn) return active;
    const version = await repo.version(db, row.seq, updatedOn);
    if (!version) return undefined;
    return assetDoc({
      id: row.seq,
      customId: row.customId,
      template: active.template as { id: number; customId: string },
      parentId: row.parentId,
      data: version.data,
      unversioned: active.unversionedAttributes as Record<string, unknown>,
      version: { updatedOn: version.updatedOn, updatedBy: version.updatedBy, comment: version.comment, active: false },
      createdOn: row.createdOn,
      createdBy: row.createdBy,
    });
  };
  /** updatedOn of a designator (ACTIVE, HEAD, PREVIOUS/NEXT of `relativeTo`, or a value); undefined when there is none. */
  const resolve = async (
    db: Db,
    row: AssetRow,
    designator: string,
    relativeTo: number,
    what: string,
  ): Promise<number | undefined> => {
    switch (designator) {
      case 'ACTIVE':
        return row.activeOn;
      case 'HEAD':
        return row.headOn;
      case 'PREVIOUS':
      case 'NEXT':
        return repo.neighbour(db, row.seq, relativeTo, designator);
      default:
        return parseUpdatedOn(designator, what);
    }
  };
  /**
   * The asset at the version `o` names, as `get` answers it (its `updatedOn`, `other` and `withoutHiddenAttributes`):
   * undefined when that version does not exist. `template` is needed for `withoutHiddenAttributes`.
   */
  const readAsset = async (
    db: Db,
    row: AssetRow,
    o: ReadOptions,
    template: TemplateDoc | undefined,
    what: string,
  ): Promise<Record<string, unknown> | undefined> => {
    const designator = o.updatedOn ?? 'ACTIVE';
    if (designator === 'PREVIOUS' || designator === 'NEXT')
      throw DM_ERRORS.invalidCall(`${what}: updatedOn is HEAD, ACTIVE or an updatedOn value`);
    const at = await resolve(db, row, designator, row.activeOn, `${what}: updatedOn`);
    const doc = at === undefined ? undefined : await docAt(db, row, at);
    if (!doc) return undefined;
    const shown = (d: Record<string, unknown>) =>
      template && o.withoutHiddenAttributes ? withoutHidden(d, template) : d;
    const asset = shown(doc);
    if (o.other !== undefined) {
      const other = await resolve(db, row, o.other, at!, `${what}: other`);
      const otherDoc = other === undefined ? undefined : await docAt(db, row, other);
      asset.allVersions = (await repo.versions(db, row.seq)).map((v) => {
        const version = {
          updatedOn: new Date(v.updatedOn).toISOString(),
          updatedBy: v.updatedBy,
          comment: v.comment,
          active: v.updatedOn === row.activeOn,
        };
        if (otherDoc && v.updatedOn === other) {
          const shownOther = shown(otherDoc);
          return {
            ...version,
            displayName: shownOther.displayName,
            description: shownOther.description,
            attributes: shownOther.attributes,
          };
        }
        return version;
      });
    }
    return asset;
  };
  /** The answer of `return`: the asset as the get behind it answers, with `returnParameters` as its parameters. */
  const returned = async (db: Db, seq: number, o: ReadOptions): Promise<Record<string, unknown>> => {
    const row = await assetOf(db, { id: seq });
    const template = o.withoutHiddenAttributes ? await templateOf(db, { id: row.templateId }) : undefined;
    const asset = await readAsset(db, row, o, template, 'returnParameters');
    if (!asset) throw DM_ERRORS.versionNotFound(`${o.updatedOn} of asset ${row.seq}`);
    return asset;
  };
  /** Writes the asset's state with the answer of its ACTIVE version. */
  const saveState = async (
    db: Db,
    row: AssetRow,
    s: {
      customId: string | null;
      parentId: number | null;
      headOn: number;
      activeOn: number;
      data: VersionData;
      version: { updatedOn: number; updatedBy: string; comment: string };
      unversioned: Record<string, unknown>;
      template: { id: number; customId: string };
    },
    added?: { updatedOn: number; updatedBy: string; comment: string; data: VersionData },
    /** The ACTIVE answer being replaced, when the caller has it parsed already. */
    previous: Record<string, unknown> = JSON.parse(row.doc) as Record<string, unknown>,
  ) => {
    const doc = assetDoc({
      id: row.seq,
      customId: s.customId,
      template: s.template,
      parentId: s.parentId,
      data: s.data,
      unversioned: s.unversioned,
      version: { ...s.version, active: true },
      createdOn: row.createdOn,
      createdBy: row.createdBy,
    });
    await repo.setState(
      db,
      row.seq,
      { customId: s.customId, parentId: s.parentId, headOn: s.headOn, activeOn: s.activeOn, doc },
      { customId: row.customId, parentId: row.parentId, doc: previous },
      added,
      row.rev,
    );
  };
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

    update: guardedWrite(singleUpdate, async (db, parameters, caller) => {
      const p = parse(UpdateParams, parameters, 'update');
      const read = p.return ? returnOptions(p.returnParameters) : {};
      // Mode 3: activate an existing version.
      if (p.asset === undefined && p.updatedOn !== undefined) {
        if (!options.inactiveVersions)
          throw DM_ERRORS.invalidCall(
            "update: activating a version needs the 'inactive versions' feature (engine.inactiveVersions)",
          );
        const row = await assetOf(db, refOf(p, 'update'), true);
        const template = await templateOfAsset(db, row);
        usable(template, caller);
        const target = p.updatedOn === 'HEAD' ? row.headOn : parseUpdatedOn(p.updatedOn, 'update: updatedOn');
        const version = await repo.version(db, row.seq, target);
        if (!version) throw DM_ERRORS.versionNotFound(`${p.updatedOn} of asset ${row.seq}`);
        const active = JSON.parse(row.doc) as Record<string, unknown>;
        await saveState(db, row, {
          customId: row.customId,
          parentId: row.parentId,
          headOn: row.headOn,
          activeOn: target,
          data: version.data,
          version,
          unversioned: active.unversionedAttributes as Record<string, unknown>,
          template: active.template as { id: number; customId: string },
        });
        return p.return ? { asset: await returned(db, row.seq, read) } : {};
      }
      const a = checkAsset(p.asset, 'update');
      if (p.asset === undefined)
        throw DM_ERRORS.invalidCall('update: asset is required (or updatedOn, to activate a version)');
      const tref = templateRefOf(a.template) ?? templateRefOf(a.version?.template);
      const row = await assetOf(
        db,
        refOf(
          {
            id: a.id,
            customId: a.customId,
            templateId: tref && 'id' in tref ? tref.id : p.templateId,
            templateCustomId: tref && 'customId' in tref ? tref.customId : p.templateCustomId,
          },
          'update',
        ),
        true,
      );
      const template = await templateOfAsset(db, row);
      usable(template, caller);
      const active = JSON.parse(row.doc) as Record<string, unknown> & {
        template: { id: number; customId: string };
        unversionedAttributes: Record<string, unknown>;
      };
      const head = row.headOn === row.activeOn ? undefined : await repo.version(db, row.seq, row.headOn);
      const headData: VersionData = head?.data ?? {
        displayName: active.displayName as string,
        description: active.description as string,
        attributes: active.attributes as Record<string, unknown>,
      };
      const unversionedOnly = p.unversionedAttributesOnly === true;
      if (unversionedOnly && a.attributes !== undefined)
        throw DM_ERRORS.invalidCall('update: with unversionedAttributesOnly, write only unversionedAttributes');
      const merged = mergeAttributes(
        template,
        { attributes: headData.attributes, unversioned: active.unversionedAttributes },
        { attributes: a.attributes, unversioned: a.unversionedAttributes },
        { requiredOverride: p.requiredOverride === true, defaults: false },
      );
      const customId = a.id !== undefined && a.customId !== undefined ? a.customId : row.customId;
      const parentId = a.parentId !== undefined ? a.parentId : row.parentId;
      if (parentId !== row.parentId) await checkParent(db, parentId, template, row.seq);
      const data: VersionData = unversionedOnly
        ? headData
        : {
            displayName: a.displayName ?? headData.displayName,
            description: a.description ?? headData.description,
            attributes: merged.attributes,
          };
      const versionChanged = !sameData(data, headData);
      const restChanged =
        customId !== row.customId ||
        parentId !== row.parentId ||
        JSON.stringify(merged.unversioned) !== JSON.stringify(active.unversionedAttributes);
      const newVersion = !unversionedOnly && (versionChanged || p.onlyIfChanged !== true);
      if (!newVersion && !restChanged && p.onlyIfChanged === true) return { unchanged: true };
      const activeVersion = {
        updatedOn: row.activeOn,
        updatedBy: (active.version as { updatedBy: string }).updatedBy,
        comment: (active.version as { comment: string }).comment,
      };
      const activeData: VersionData = {
        displayName: active.displayName as string,
        description: active.description as string,
        attributes: active.attributes as Record<string, unknown>,
      };
      const state = {
        customId,
        parentId,
        unversioned: merged.unversioned,
        template: { id: template.id, customId: template.customId },
      };
      await uniquely(
        dialect,
        async () => {
          if (!newVersion) {
            await saveState(
              db,
              row,
              { ...state, headOn: row.headOn, activeOn: row.activeOn, data: activeData, version: activeVersion },
              undefined,
              active,
            );
            return;
          }
          const updatedOn = Math.max(Date.now(), row.headOn + 1);
          const version = { updatedOn, updatedBy: caller.name, comment: p.versionComment ?? '' };
          const activate = activatesNewVersion(
            options.inactiveVersions,
            (p.activationPolicy ?? 'ifHEADActive') as ActivationPolicy,
            row.headOn === row.activeOn,
          );
          await saveState(
            db,
            row,
            activate
              ? { ...state, headOn: updatedOn, activeOn: updatedOn, data, version }
              : { ...state, headOn: updatedOn, activeOn: row.activeOn, data: activeData, version: activeVersion },
            { ...version, data },
            active,
          );
        },
        customIdTaken(customId),
      );
      const out: Record<string, unknown> = p.return ? { asset: await returned(db, row.seq, read) } : {};
      if (!newVersion && p.onlyIfChanged === true && !unversionedOnly) out.unchanged = true;
      return out;
    }),

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
        throw DM_ERRORS.assetNotFound(showRef(ref));
      }
      const needsTemplate = p.withoutHiddenAttributes === true || row.restricted;
      const template = needsTemplate ? await templateOf(db, { id: row.templateId }) : undefined;
      if (template) usable(template, caller);
      // The common case, the ACTIVE version as stored: its text spliced into the answer.
      if ((p.updatedOn ?? 'ACTIVE') === 'ACTIVE' && p.other === undefined && !p.withoutHiddenAttributes)
        return new JsonText(`{"asset":${row.doc}}`);
      const asset = await readAsset(db, row, p, template, 'get');
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

/** What templates need of assets: a template with assets is not deleted, a renamed one renames them, template actions export them. */
export function templateAssets(repo: AssetsRepository): TemplateAssets {
  return {
    async hasAssets(db, templateId) {
      return (await repo.assetsOfTemplate(db, templateId, 1)).length > 0;
    },
    async renamed(db, templateId, customId) {
      for (const seq of await repo.assetsOfTemplate(db, templateId, Number.MAX_SAFE_INTEGER)) {
        const row = (await repo.find(db, { id: seq }))!;
        const doc = JSON.parse(row.doc) as Record<string, unknown>;
        await repo.setState(
          db,
          seq,
          {
            customId: row.customId,
            parentId: row.parentId,
            headOn: row.headOn,
            activeOn: row.activeOn,
            doc: { ...doc, template: { id: templateId, customId } },
          },
          { customId: row.customId, parentId: row.parentId, doc },
        );
      }
    },
    async assets(db, templateId) {
      const docs = await repo.docs(db, await repo.assetsOfTemplate(db, templateId, ACTION_ASSETS));
      return [...docs.values()].map((d) => JSON.parse(d) as Record<string, unknown>);
    },
  };
}
