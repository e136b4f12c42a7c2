// Asset `update` (interface-spec, Data management API; decisions section 9): a new version of the data, the
// unversioned attributes alone, or the activation of an existing version, each with the asset's state written once.
import type { Kysely } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import { DM_ERRORS } from '../dm.errors.js';
import type { DmTables } from '../dm.tables.js';
import { guardedWrite, parse, uniquely, type MethodTable } from '../method.js';
import type { VersionData } from './asset.schema.js';
import { activatesNewVersion, mergeAttributes, sameData, type ActivationPolicy } from './asset-rules.js';
import type { AssetsRepository } from './assets.repository.js';
import { UpdateParams, checkAsset, parseUpdatedOn, refOf, returnOptions, templateRefOf } from './asset-params.js';
import type { TemplateDocs } from './asset-templates.js';
import { customIdTaken, type AssetVersions } from './asset-versions.js';

type Db = Kysely<DmTables>;

/**
 * An update without `return` writes one guarded statement (AssetsRepository.setState) and reads nothing after it:
 * where each write is its own transaction it runs without one.
 */
const singleUpdate = (parameters: unknown): boolean =>
  typeof parameters === 'object' && parameters !== null && (parameters as { return?: unknown }).return !== true;

export function assetUpdate(
  repo: AssetsRepository,
  docs: TemplateDocs,
  versions: AssetVersions,
  dialect: Dialect,
  inactiveVersions: boolean,
): MethodTable<Db>[string] {
  return guardedWrite(singleUpdate, async (db, parameters, caller) => {
    const p = parse(UpdateParams, parameters, 'update');
    const read = p.return ? returnOptions(p.returnParameters) : {};
    // Mode 3: activate an existing version.
    if (p.asset === undefined && p.updatedOn !== undefined) {
      if (!inactiveVersions)
        throw DM_ERRORS.invalidCall(
          "update: activating a version needs the 'inactive versions' feature (engine.inactiveVersions)",
        );
      const row = await versions.assetOf(db, refOf(p, 'update'), true);
      const template = await docs.ofAsset(db, row);
      docs.usable(template, caller);
      const target = p.updatedOn === 'HEAD' ? row.headOn : parseUpdatedOn(p.updatedOn, 'update: updatedOn');
      const version = await repo.version(db, row.seq, target);
      if (!version) throw DM_ERRORS.versionNotFound(`${p.updatedOn} of asset ${row.seq}`);
      const active = JSON.parse(row.doc) as Record<string, unknown>;
      await versions.saveState(db, row, {
        customId: row.customId,
        parentId: row.parentId,
        headOn: row.headOn,
        activeOn: target,
        data: version.data,
        version,
        unversioned: active.unversionedAttributes as Record<string, unknown>,
        template: active.template as { id: number; customId: string },
      });
      return p.return ? { asset: await versions.returned(db, row.seq, read) } : {};
    }
    const a = checkAsset(p.asset, 'update');
    if (p.asset === undefined)
      throw DM_ERRORS.invalidCall('update: asset is required (or updatedOn, to activate a version)');
    const tref = templateRefOf(a.template) ?? templateRefOf(a.version?.template);
    const row = await versions.assetOf(
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
    const template = await docs.ofAsset(db, row);
    docs.usable(template, caller);
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
    if (parentId !== row.parentId) await versions.checkParent(db, parentId, template, row.seq);
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
          await versions.saveState(
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
          inactiveVersions,
          (p.activationPolicy ?? 'ifHEADActive') as ActivationPolicy,
          row.headOn === row.activeOn,
        );
        await versions.saveState(
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
    const out: Record<string, unknown> = p.return ? { asset: await versions.returned(db, row.seq, read) } : {};
    if (!newVersion && p.onlyIfChanged === true && !unversionedOnly) out.unchanged = true;
    return out;
  });
}
