// What the templates need of their assets: a template with assets is not deleted, a renamed one renames them, and
// template actions read them.
import type { TemplateAssets } from '../templates/template-methods.js';
import type { AssetsRepository } from './assets.repository.js';
import { ACTION_ASSETS } from './asset-params.js';

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
