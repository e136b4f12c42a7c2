// Finding one asset by its reference (id, or customId within its template): outside a transaction by batched lookups
// (one statement answers a turn's finds), inside one by a prepared statement per kind of reference.
import type { Kysely } from 'kysely';
import { batchedLookup } from '../../../platform/db/batched-lookup.js';
import type { Dialect, JsonRecordColumn } from '../../../platform/db/dialects/dialect.js';
import type { PreparedQueries } from '../../../platform/db/prepared-query.js';
import { targetOf, type DataAccess } from '../../../platform/db/data-access.js';
import type { DmTables } from '../dm.tables.js';
import type { AssetRow } from './asset.schema.js';
import { withId } from './asset-page-rows.js';

type Db = Kysely<DmTables>;

export type AssetRef =
  | { id: number }
  | { customId: string; templateId: number }
  | { customId: string; templateCustomId: string };

interface AssetRowRead {
  seq: number | string;
  template_id: number | string;
  custom_id: string | null;
  parent_id: number | string | null;
  head_on: number | string;
  active_on: number | string;
  created_on: number | string;
  created_by: string;
  restricted: number | string;
  rev: number | string;
  doc: string;
  template_doc?: string;
}

const toRow = (r: AssetRowRead): AssetRow => {
  const doc = withId(Number(r.seq), r.doc);
  return {
    seq: Number(r.seq),
    templateId: Number(r.template_id),
    customId: r.custom_id,
    parentId: r.parent_id === null ? null : Number(r.parent_id),
    headOn: Number(r.head_on),
    activeOn: Number(r.active_on),
    createdOn: Number(r.created_on),
    createdBy: r.created_by,
    restricted: Number(r.restricted) === 1,
    doc,
    rev: Number(r.rev),
    ...(r.template_doc !== undefined ? { templateDoc: r.template_doc } : {}),
  };
};

interface AssetLookups {
  byId: (key: { id: number }) => Promise<AssetRowRead | undefined>;
  byTemplateId: (key: { templateId: number; customId: string }) => Promise<AssetRowRead | undefined>;
  byTemplateCustomId: (key: { templateCustomId: string; customId: string }) => Promise<AssetRowRead | undefined>;
}

/** The columns of an asset row (AssetRowRead) besides its documents, as both ways of finding it read them. */
const ASSET_COLUMNS = [
  'a.seq',
  'a.template_id',
  'a.custom_id',
  'a.parent_id',
  'a.head_on',
  'a.active_on',
  'a.created_on',
  'a.created_by',
  'a.rev',
  't.restricted',
] as const;

export class AssetFinds {
  /** Batched lookups outside transactions: of reads, and of writes (with the template's text, which a write checks). */
  private readonly lookups: Record<'read' | 'write', AssetLookups>;
  private readonly root: Db;

  constructor(
    private readonly data: DataAccess<DmTables>,
    private readonly scope: string,
    private readonly dialect: Dialect,
    private readonly prepared: PreparedQueries,
  ) {
    this.root = data.db;
    const lookup = <In>(
      name: string,
      recordColumns: Record<string, JsonRecordColumn>,
      record: (input: In) => Record<string, unknown>,
      join: (records: any) => any,
      template: boolean,
    ) =>
      batchedLookup<In, AssetRowRead>(data, dialect, {
        name: `${name}${template ? ':t' : ''}`,
        columns: { s: 'text', ...recordColumns },
        record: (input) => ({ s: scope, ...record(input) }),
        query: (records) =>
          join(records).select([
            'r.n',
            ...ASSET_COLUMNS,
            dialect.jsonText('a.doc').as('doc'),
            ...(template ? [dialect.jsonText('t.doc').as('template_doc')] : []),
          ]),
      });
    const withTemplate = (q: any) =>
      dialect.joinByKey(q, 'dm_templates', 't', [
        ['scope', 'r.s'],
        ['id', 'a.template_id'],
      ]);
    const lookups = (template: boolean): AssetLookups => ({
      byId: lookup(
        'asset-by-id',
        { i: 'bigint' },
        ({ id }: { id: number }) => ({ i: id }),
        (r) =>
          withTemplate(
            dialect.joinByKey(r, 'dm_assets', 'a', [
              ['scope', 'r.s'],
              ['seq', 'r.i'],
            ]),
          ),
        template,
      ),
      byTemplateId: lookup(
        'asset-by-template-id',
        { t: 'bigint', c: 'text' },
        ({ templateId, customId }: { templateId: number; customId: string }) => ({ t: templateId, c: customId }),
        (r) =>
          withTemplate(
            dialect.joinByKey(r, 'dm_assets', 'a', [
              ['scope', 'r.s'],
              ['template_id', 'r.t'],
              ['custom_id', 'r.c'],
            ]),
          ),
        template,
      ),
      byTemplateCustomId: lookup(
        'asset-by-template-custom-id',
        { t: 'text', c: 'text' },
        ({ templateCustomId, customId }: { templateCustomId: string; customId: string }) => ({
          t: templateCustomId,
          c: customId,
        }),
        (r) =>
          dialect.joinByKey(
            dialect.joinByKey(r, 'dm_templates', 't', [
              ['scope', 'r.s'],
              ['custom_id', 'r.t'],
            ]),
            'dm_assets',
            'a',
            [
              ['scope', 'r.s'],
              ['template_id', 't.id'],
              ['custom_id', 'r.c'],
            ],
          ),
        template,
      ),
    });
    this.lookups = { read: lookups(false), write: lookups(true) };
  }

  /**
   * The asset by id, or by customId within its template. Outside a transaction, one statement answers a turn's
   * lookups; `forWrite` reads its template's text too (as lookups inside transactions always do).
   */
  async find(db: Db, ref: AssetRef, forWrite = false): Promise<AssetRow | undefined> {
    if (db === this.root) {
      const l = this.lookups[forWrite ? 'write' : 'read'];
      const row =
        'id' in ref
          ? await l.byId(ref)
          : 'templateId' in ref
            ? await l.byTemplateId(ref)
            : await l.byTemplateCustomId(ref);
      return row && toRow(row);
    }
    // In a transaction: one prepared statement per kind of reference.
    const base = (p: (i: number) => any) =>
      db
        .selectFrom('dm_assets as a')
        .innerJoin('dm_templates as t', (j) => j.onRef('t.id', '=', 'a.template_id').onRef('t.scope', '=', 'a.scope'))
        .select([...ASSET_COLUMNS, this.dialect.jsonText('a.doc').as('doc')])
        // Writes read the template too: one statement for both.
        .select(this.dialect.jsonText('t.doc').as('template_doc'))
        .where('a.scope', '=', p(0));
    const rows =
      'id' in ref
        ? await this.prepared.run<AssetRowRead>(
            targetOf(this.data, db),
            'find:id',
            (p) => base(p).where('a.seq', '=', p(1)),
            [this.scope, ref.id],
          )
        : 'templateId' in ref
          ? await this.prepared.run<AssetRowRead>(
              targetOf(this.data, db),
              'find:template-id',
              (p) => base(p).where('a.template_id', '=', p(1)).where('a.custom_id', '=', p(2)),
              [this.scope, ref.templateId, ref.customId],
            )
          : await this.prepared.run<AssetRowRead>(
              targetOf(this.data, db),
              'find:template-custom-id',
              (p) => base(p).where('t.custom_id', '=', p(1)).where('a.custom_id', '=', p(2)),
              [this.scope, ref.templateCustomId, ref.customId],
            );
    const row = rows[0];
    return row && toRow(row);
  }
}
