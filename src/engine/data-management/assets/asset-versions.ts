// An asset's stored state as the asset methods read and write it: the row by reference, its versions by designator
// (ACTIVE, HEAD, PREVIOUS, NEXT, a time), the answer of a version, the parent check and the state written back.
import type { Kysely } from 'kysely';
import { DM_ERRORS } from '../dm.errors.js';
import type { DmTables } from '../dm.tables.js';
import type { AssetRow, VersionData } from './asset.schema.js';
import { assetDoc, withoutHidden, type TemplateDoc } from './asset-rules.js';
import type { AssetRef, AssetsRepository } from './assets.repository.js';
import { parseUpdatedOn, type ReadOptions } from './asset-params.js';
import type { TemplateDocs } from './asset-templates.js';

type Db = Kysely<DmTables>;

const showRef = (ref: AssetRef) =>
  'id' in ref
    ? `id ${ref.id}`
    : `customId ${ref.customId} of template ${'templateId' in ref ? ref.templateId : ref.templateCustomId}`;

/** 404 of an asset reference, as every method words it. */
export const assetNotFound = (ref: AssetRef) => DM_ERRORS.assetNotFound(showRef(ref));

/** The conflict of a customId taken in the template (uniquely's answer to a unique violation). */
export const customIdTaken = (customId: string | null) => () =>
  DM_ERRORS.conflict(`customId ${String(customId).slice(0, 200)} is taken in this template`, {
    customId: String(customId).slice(0, 200),
  });

export class AssetVersions {
  constructor(
    private readonly repo: AssetsRepository,
    private readonly docs: TemplateDocs,
  ) {}

  readonly assetOf = async (db: Db, ref: AssetRef, forWrite = false): Promise<AssetRow> => {
    const row = await this.repo.find(db, ref, forWrite);
    if (!row) throw assetNotFound(ref);
    return row;
  };

  /** Checks a parent: it exists, its template lists this one among its child templates, and it is not the asset or below it. */
  readonly checkParent = async (db: Db, parentId: number | null, template: TemplateDoc, self?: number) => {
    if (parentId === null) return;
    const parent = await this.repo.find(db, { id: parentId });
    if (!parent) throw DM_ERRORS.invalidCall(`asset/parentId: there is no asset ${parentId}`, { parentId });
    const parentTemplate = await this.docs.templateOf(db, { id: parent.templateId });
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
      at = await this.repo.find(db, { id: at.parentId });
    }
  };

  /** The answer of a version of the asset. */
  readonly docAt = async (db: Db, row: AssetRow, updatedOn: number): Promise<Record<string, unknown> | undefined> => {
    const active = JSON.parse(row.doc) as Record<string, unknown>;
    if (updatedOn === row.activeOn) return active;
    const version = await this.repo.version(db, row.seq, updatedOn);
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
  readonly resolve = async (
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
        return this.repo.neighbour(db, row.seq, relativeTo, designator);
      default:
        return parseUpdatedOn(designator, what);
    }
  };

  /**
   * The asset at the version `o` names, as `get` answers it (its `updatedOn`, `other` and `withoutHiddenAttributes`):
   * undefined when that version does not exist. `template` is needed for `withoutHiddenAttributes`.
   */
  readonly readAsset = async (
    db: Db,
    row: AssetRow,
    o: ReadOptions,
    template: TemplateDoc | undefined,
    what: string,
  ): Promise<Record<string, unknown> | undefined> => {
    const designator = o.updatedOn ?? 'ACTIVE';
    if (designator === 'PREVIOUS' || designator === 'NEXT')
      throw DM_ERRORS.invalidCall(`${what}: updatedOn is HEAD, ACTIVE or an updatedOn value`);
    const at = await this.resolve(db, row, designator, row.activeOn, `${what}: updatedOn`);
    const doc = at === undefined ? undefined : await this.docAt(db, row, at);
    if (!doc) return undefined;
    const shown = (d: Record<string, unknown>) =>
      template && o.withoutHiddenAttributes ? withoutHidden(d, template) : d;
    const asset = shown(doc);
    if (o.other !== undefined) {
      const other = await this.resolve(db, row, o.other, at!, `${what}: other`);
      const otherDoc = other === undefined ? undefined : await this.docAt(db, row, other);
      asset.allVersions = (await this.repo.versions(db, row.seq)).map((v) => {
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
  readonly returned = async (db: Db, seq: number, o: ReadOptions): Promise<Record<string, unknown>> => {
    const row = await this.assetOf(db, { id: seq });
    const template = o.withoutHiddenAttributes ? await this.docs.templateOf(db, { id: row.templateId }) : undefined;
    const asset = await this.readAsset(db, row, o, template, 'returnParameters');
    if (!asset) throw DM_ERRORS.versionNotFound(`${o.updatedOn} of asset ${row.seq}`);
    return asset;
  };

  /** Writes the asset's state with the answer of its ACTIVE version. */
  readonly saveState = async (
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
    await this.repo.setState(
      db,
      row.seq,
      { customId: s.customId, parentId: s.parentId, headOn: s.headOn, activeOn: s.activeOn, doc },
      { customId: row.customId, parentId: row.parentId, doc: previous },
      added,
      row.rev,
    );
  };
}
