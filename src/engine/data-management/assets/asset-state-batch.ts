// The guarded state writes of one turn as one statement (PostgreSQL, outside transactions): each asset's row written
// when its `rev` is still the one read, its version and value rows only then (AssetStates.writeStates).
import { sql, type Kysely } from 'kysely';
import type { Dialect, JsonRecordColumn } from '../../../platform/db/dialects/dialect.js';
import type { DmTables } from '../dm.tables.js';
import type { VersionData } from './asset.schema.js';
import { stored, type IndexRow } from './asset-index-rows.js';

type Db = Kysely<DmTables>;

/** A value row's columns as the JSON records of a combined statement carry them (Dialect.jsonRecords). */
export const VALUE_RECORD: Record<(typeof VALUE_COLUMNS)[number], JsonRecordColumn> = {
  path: 'text',
  t: 'integer',
  elem: 'integer',
  num: 'double',
  str: 'text',
  ci: 'text',
  usr: 'text',
  uci: 'text',
};
/** A value row's columns after its scope and item. */
export const VALUE_COLUMNS = ['path', 't', 'elem', 'num', 'str', 'ci', 'usr', 'uci'] as const;

/** One asset's guarded state write, as a batch of them carries it (AssetStates.writeStates). */
export interface StateWrite {
  seq: number;
  rev: number;
  headOn: number;
  activeOn: number;
  doc: Record<string, unknown>;
  idx: number;
  customId: string | null;
  parentId: number | null;
  version?: { updatedOn: number; updatedBy: string; comment: string; data: VersionData };
  /** The paths whose index rows go first, and the rows that come in. */
  paths: string[];
  rows: IndexRow[];
}

/** The batch's arguments: 0 the scope, then the assets, versions, index paths removed and rows added as JSON. */
export function batchArgs(scope: string, writes: StateWrite[]): unknown[] {
  const assets = writes.map((w, n) => ({
    n,
    seq: w.seq,
    rev: w.rev,
    head_on: w.headOn,
    active_on: w.activeOn,
    doc: stored(w.doc, false),
    idx: w.idx,
    custom_id: w.customId,
    parent_id: w.parentId,
  }));
  const versions = writes.flatMap((w, n) =>
    w.version
      ? [
          {
            n,
            updated_on: w.version.updatedOn,
            updated_by: w.version.updatedBy,
            comment: w.version.comment,
            data: w.version.data,
          },
        ]
      : [],
  );
  const removals = writes.flatMap((w, n) => w.paths.map((path) => ({ n, path })));
  const rows = writes.flatMap((w, n) =>
    w.rows.map(([path, t, elem, num, str, ci, usr, uci]) => ({ n, path, t, elem, num, str, ci, usr, uci })),
  );
  return [scope, JSON.stringify(assets), JSON.stringify(versions), JSON.stringify(removals), JSON.stringify(rows)];
}

/** The statement's parts; the guarded UPDATE's part answers the written assets' keys, which the others join. */
export function batchParts(db: Db, dialect: Dialect, p: (i: number) => any) {
  const written = dialect.statementPart(0);
  const records = (p: (i: number) => any, i: number, columns: Record<string, JsonRecordColumn>) =>
    sql`${dialect.jsonRecords(p(i), columns)}`;
  return [
    db
      .updateTable('dm_assets')
      .from(
        records(p, 1, {
          n: 'integer',
          seq: 'bigint',
          rev: 'bigint',
          head_on: 'bigint',
          active_on: 'bigint',
          doc: 'json',
          idx: 'integer',
          custom_id: 'text',
          parent_id: 'bigint',
        }).as('r') as any,
      )
      .set({
        head_on: sql.ref('r.head_on'),
        active_on: sql.ref('r.active_on'),
        doc: sql.ref('r.doc'),
        idx: sql.ref('r.idx'),
        custom_id: sql.ref('r.custom_id'),
        parent_id: sql.ref('r.parent_id'),
        rev: sql<number>`dm_assets.rev + 1`,
      } as any)
      .where('dm_assets.scope', '=', p(0))
      .whereRef('dm_assets.seq', '=', 'r.seq' as any)
      .whereRef('dm_assets.rev', '=', 'r.rev' as any)
      .returning(['dm_assets.seq', 'r.n' as any]),
    db
      .insertInto('dm_asset_versions')
      .columns(['scope', 'asset_id', 'updated_on', 'updated_by', 'comment', 'data'])
      .expression(
        db
          .selectFrom(
            records(p, 2, {
              n: 'integer',
              updated_on: 'bigint',
              updated_by: 'text',
              comment: 'text',
              data: 'json',
            }).as('v') as any,
          )
          .innerJoin(`${written} as g` as any, 'g.n' as any, 'v.n' as any)
          .select([
            sql`${p(0)}`.as('scope'),
            'g.seq as asset_id',
            'v.updated_on',
            'v.updated_by',
            'v.comment',
            'v.data',
          ] as any),
      ),
    db
      .deleteFrom('dm_asset_values')
      .using([records(p, 3, { n: 'integer', path: 'text' }).as('x') as any, `${written} as g` as any])
      .whereRef('g.n' as any, '=', 'x.n' as any)
      .whereRef('dm_asset_values.item_seq', '=', 'g.seq' as any)
      .whereRef('dm_asset_values.path', '=', 'x.path' as any),
    db
      .insertInto('dm_asset_values')
      .columns(['scope', 'item_seq', ...VALUE_COLUMNS])
      .expression(
        db
          .selectFrom(records(p, 4, { n: 'integer', ...VALUE_RECORD }).as('r') as any)
          .innerJoin(`${written} as g` as any, 'g.n' as any, 'r.n' as any)
          .select([sql`${p(0)}`.as('scope'), 'g.seq as item_seq', ...VALUE_COLUMNS.map((c) => `r.${c}`)] as any),
      ),
    db.selectFrom(`${written} as g` as any).select('g.n' as any),
  ];
}
