import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import { PreparedQueries } from '../../../platform/db/prepared-query.js';
import { targetOf, type DataAccess } from '../../../platform/db/data-access.js';
import type { ValueIndexSource } from '../../../platform/query/index.js';
import type { DmTables } from '../dm.tables.js';
import type { AssetRow, VersionData, VersionRow } from './asset.schema.js';
import { AssetFinds, type AssetRef } from './asset-finds.js';
import { AssetLists } from './asset-lists.repository.js';
import { withId } from './asset-page-rows.js';
import { stored } from './asset-index-rows.js';
import { AssetStates } from './asset-states.repository.js';
export { ASSET_UNIVERSE, type AssetQuery } from './asset-lists.repository.js';
export type { AssetPage, PageDocs } from './asset-page-rows.js';

type Db = Kysely<DmTables>;

export type { AssetRef } from './asset-finds.js';

/** Ids as the JSON array parameter of AssetsRepository.idIn. */
const idsParameter = (seqs: readonly number[]): string => JSON.stringify(seqs.map((seq) => ({ seq })));

/** SQL of assets, their versions and their value index; every statement names the engine's scope. */
export class AssetsRepository {
  private readonly prepared = new PreparedQueries(300);
  /** Finds of one asset by its reference. */
  private readonly finds: AssetFinds;
  /** Where the value index of the ACTIVE versions is (platform/query), for the asset aliased `a`. */
  readonly source: ValueIndexSource;

  /** Pages of the assets a query selects. */
  readonly lists: AssetLists;
  /** Writes of the assets' states (AssetStates.write). */
  private readonly states: AssetStates;

  constructor(
    private readonly data: DataAccess<DmTables>,
    private readonly scope: string,
    private readonly dialect: Dialect,
  ) {
    this.states = new AssetStates(data, scope, dialect);
    this.lists = new AssetLists(scope, dialect);
    this.source = { itemsTable: 'dm_assets', valuesTable: 'dm_asset_values', scope: [['scope', scope]], alias: 'a' };
    this.finds = new AssetFinds(data, scope, dialect, this.prepared);
  }

  /** The asset by id, or by customId within its template (asset-finds.ts). */
  find(db: Db, ref: AssetRef, forWrite = false): Promise<AssetRow | undefined> {
    return this.finds.find(db, ref, forWrite);
  }

  /** Inserts the asset with its ACTIVE answer (`doc`, its id not yet known) and that answer's index rows; answers its id. */
  async insert(
    db: Db,
    a: {
      templateId: number;
      customId: string | null;
      parentId: number | null;
      on: number;
      by: string;
      doc: Record<string, unknown>;
      version: { updatedOn: number; updatedBy: string; comment: string; data: VersionData };
    },
  ): Promise<number> {
    const rows = await this.prepared.run<{ seq: number }>(
      targetOf(this.data, db),
      'insert-asset',
      (p) =>
        db
          .insertInto('dm_assets')
          .values({
            scope: p(0),
            template_id: p(1),
            custom_id: p(2),
            parent_id: p(3),
            head_on: p(4),
            active_on: p(4),
            created_on: p(4),
            created_by: p(5),
            doc: p(6),
            idx: p(7),
          })
          .returning('seq'),
      [this.scope, a.templateId, a.customId, a.parentId, a.on, a.by, stored(a.doc), 0],
    );
    const seq = Number(rows[0].seq);
    // Its index rows, as a change from an asset without any (the answer as inserted, whose id is now known).
    const doc = { ...a.doc, id: seq };
    await this.setState(
      db,
      seq,
      { customId: a.customId, parentId: a.parentId, headOn: a.on, activeOn: a.on, doc },
      { customId: a.customId, parentId: a.parentId, doc: {} },
      a.version,
    );
    return seq;
  }

  /** The asset's state (AssetStates.write). */
  setState(...args: Parameters<AssetStates['write']>): Promise<void> {
    return this.states.write(...args);
  }

  /** The version of the asset with that updatedOn. */
  async version(db: Db, assetId: number, updatedOn: number): Promise<VersionRow | undefined> {
    const rows = await this.prepared.run<{ updated_on: number; updated_by: string; comment: string; data: string }>(
      targetOf(this.data, db),
      'version',
      (p) =>
        db
          .selectFrom('dm_asset_versions')
          .select(['updated_on', 'updated_by', 'comment', this.dialect.jsonText('data').as('data')])
          .where('scope', '=', p(0))
          .where('asset_id', '=', p(1))
          .where('updated_on', '=', p(2)),
      [this.scope, assetId, updatedOn],
    );
    const r = rows[0];
    return (
      r && {
        updatedOn: Number(r.updated_on),
        updatedBy: r.updated_by,
        comment: r.comment,
        data: JSON.parse(r.data) as VersionData,
      }
    );
  }

  /** updatedOn of the version before (`PREVIOUS`) or after (`NEXT`) the given one. */
  async neighbour(db: Db, assetId: number, updatedOn: number, which: 'PREVIOUS' | 'NEXT'): Promise<number | undefined> {
    const before = which === 'PREVIOUS';
    const rows = await this.prepared.run<{ updated_on: number }>(
      targetOf(this.data, db),
      `neighbour:${which}`,
      (p) =>
        db
          .selectFrom('dm_asset_versions')
          .select('updated_on')
          .where('scope', '=', p(0))
          .where('asset_id', '=', p(1))
          .where('updated_on', before ? '<' : '>', p(2))
          .orderBy('updated_on', before ? 'desc' : 'asc')
          .limit(1),
      [this.scope, assetId, updatedOn],
    );
    return rows[0] && Number(rows[0].updated_on);
  }

  /** Every version's metadata, newest first. */
  async versions(db: Db, assetId: number): Promise<Array<{ updatedOn: number; updatedBy: string; comment: string }>> {
    const rows = await db
      .selectFrom('dm_asset_versions')
      .select(['updated_on', 'updated_by', 'comment'])
      .where('scope', '=', this.scope)
      .where('asset_id', '=', assetId)
      .orderBy('updated_on', 'desc')
      .execute();
    return rows.map((r) => ({ updatedOn: Number(r.updated_on), updatedBy: r.updated_by, comment: r.comment }));
  }

  /** The children of each of the assets, in id order. */
  async childrenOf(db: Db, parents: number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>(parents.map((p) => [p, []]));
    if (parents.length === 0) return out;
    const rows = await db
      .selectFrom('dm_assets')
      .select(['seq', 'parent_id'])
      .where('scope', '=', this.scope)
      .where('parent_id', 'in', parents)
      .orderBy('seq')
      .execute();
    for (const r of rows) out.get(Number(r.parent_id))?.push(Number(r.seq));
    return out;
  }

  async delete(db: Db, seq: number): Promise<void> {
    await db.deleteFrom('dm_asset_values').where('item_seq', '=', seq).execute();
    await db.deleteFrom('dm_asset_versions').where('scope', '=', this.scope).where('asset_id', '=', seq).execute();
    await db.deleteFrom('dm_assets').where('scope', '=', this.scope).where('seq', '=', seq).execute();
  }

  /**
   * `column` is one of the ids of the JSON array parameter `ids` (`[{"seq":1},...]`): one statement text whatever the
   * number of ids, with one parameter for them, instead of one text per page size with a parameter per id (Kysely
   * built and compiled 200 value nodes and pg bound 201 parameters for each page of 100).
   */
  private idIn(column: string, ids: unknown): RawBuilder<SqlBool> {
    return this.dialect.inSubquery(
      sql.ref(column),
      sql`select r.seq from ${this.dialect.jsonRecords(ids, { seq: 'bigint' })} as r`,
    ) as RawBuilder<SqlBool>;
  }

  /** The assets' ACTIVE answers as JSON text, by id. */
  async docs(db: Db, seqs: number[]): Promise<Map<number, string>> {
    if (seqs.length === 0) return new Map();
    const rows = await this.prepared.run<{ seq: number | string; doc: string }>(
      targetOf(this.data, db),
      'docs',
      (p) =>
        db
          .selectFrom('dm_assets')
          .select(['seq', this.dialect.jsonText('doc').as('doc')])
          .where('scope', '=', p(0))
          .where(this.idIn('seq', p(1))),
      [this.scope, idsParameter(seqs)],
    );
    return new Map(rows.map((r) => [Number(r.seq), withId(Number(r.seq), r.doc)]));
  }

  /** The assets' ACTIVE answers as JSON text, by id, and the children of each of them in id order: one statement. */
  async docsAndChildren(
    db: Db,
    seqs: number[],
  ): Promise<{ docs: Map<number, string>; children: Map<number, number[]> }> {
    const docs = new Map<number, string>();
    const children = new Map<number, number[]>();
    if (seqs.length === 0) return { docs, children };
    // Built once, prepared on the server: one text for every page, planned once.
    const rows = await this.prepared.run<{ seq: number | string; parent: number | string | null; doc: string | null }>(
      targetOf(this.data, db),
      'docsAndChildren',
      (p) =>
        db
          .selectFrom('dm_assets')
          .select([
            'seq',
            sql<number | null>`NULL`.as('parent'),
            (this.dialect.jsonText('doc') as RawBuilder<string | null>).as('doc'),
          ])
          .where('scope', '=', p(0))
          .where(this.idIn('seq', p(1)))
          .unionAll(
            db
              .selectFrom('dm_assets')
              .select(['seq', 'parent_id as parent', sql<string | null>`NULL`.as('doc')])
              .where('scope', '=', p(0))
              .where(this.idIn('parent_id', p(1))),
          ),
      [this.scope, idsParameter(seqs)],
    );
    for (const r of rows) {
      const seq = Number(r.seq);
      if (r.doc !== null) docs.set(seq, withId(seq, r.doc));
      else if (r.parent !== null) {
        const parent = Number(r.parent);
        const kids = children.get(parent);
        if (kids) kids.push(seq);
        else children.set(parent, [seq]);
      }
    }
    for (const kids of children.values()) kids.sort((a, b) => a - b);
    for (const seq of docs.keys()) if (!children.has(seq)) children.set(seq, []);
    return { docs, children };
  }

  /** Ids of the assets of a template (at most `limit`), in id order. */
  async assetsOfTemplate(db: Db, templateId: number, limit: number): Promise<number[]> {
    const rows = await db
      .selectFrom('dm_assets')
      .select('seq')
      .where('scope', '=', this.scope)
      .where('template_id', '=', templateId)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((r) => Number(r.seq));
  }
}
