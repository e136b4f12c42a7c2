// The templates of assets as the asset methods read them: parsed once per stored text, and the rule of restricted
// templates (only engine users with one of the template's roles use them).
import type { Kysely } from 'kysely';
import { DM_ERRORS } from '../dm.errors.js';
import type { DmTables } from '../dm.tables.js';
import type { Caller } from '../method.js';
import type { TemplateRef, TemplatesRepository } from '../templates/templates.repository.js';
import type { AssetRow } from './asset.schema.js';
import type { TemplateDoc } from './asset-rules.js';

type Db = Kysely<DmTables>;

export class TemplateDocs {
  /** Parsed templates by their stored text (an update is a new text, so it is seen at once). */
  private readonly parsed = new Map<string, TemplateDoc>();

  constructor(private readonly templates: TemplatesRepository) {}

  private parse(text: string): TemplateDoc {
    let doc = this.parsed.get(text);
    if (!doc) {
      doc = JSON.parse(text) as TemplateDoc;
      if (this.parsed.size >= 1000) this.parsed.clear();
      this.parsed.set(text, doc);
    }
    return doc;
  }

  /** The template; 404 when there is none. */
  readonly templateOf = async (db: Db, ref: TemplateRef): Promise<TemplateDoc> => {
    const row = await this.templates.find(db, ref);
    if (!row) throw DM_ERRORS.templateNotFound('id' in ref ? `id ${ref.id}` : `customId ${ref.customId}`);
    return this.parse(row.doc);
  };

  /** The template of an asset, from the asset's lookup when it read it. */
  readonly ofAsset = (db: Db, row: AssetRow): Promise<TemplateDoc> =>
    row.templateDoc !== undefined
      ? Promise.resolve(this.parse(row.templateDoc))
      : this.templateOf(db, { id: row.templateId });

  /** 403 unless the template is not restricted or the caller has one of its roles. */
  readonly usable = (template: TemplateDoc, caller: Caller): void => {
    if (template.restricted && !template.roles.some((r) => caller.roles.includes(r)))
      throw DM_ERRORS.restricted(template.customId, template.roles);
  };
}
