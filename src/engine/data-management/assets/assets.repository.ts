import { sql, type Compilable, type Expression, type Kysely, type RawBuilder } from 'kysely';
import { batchPerTurn } from '../../../platform/async/turn-batch.js';
import { batchedLookup } from '../../../platform/db/batched-lookup.js';
import type { Dialect, JsonRecordColumn } from '../../../platform/db/dialects/dialect.js';
import { StaleRead } from '../../../platform/db/db-errors.js';
import { PreparedQueries } from '../../../platform/db/prepared-query.js';
import { documentIndex, VALUE_KIND, type ValueIndexSource } from '../../../platform/query/index.js';
import { sortKeys } from '../attribute-values.js';
import type { DmTables } from '../dm.tables.js';
import type { AssetRow, VersionData, VersionRow } from './asset.schema.js';
import { indexDoc } from './asset-rules.js';
import { AssetLists } from './asset-lists.repository.js';
export { ASSET_UNIVERSE, type AssetQuery } from './asset-lists.repository.js';

type Db = Kysely<DmTables>;

export type AssetRef = { id: number } | { customId: string; templateId: number } | { customId: string; templateCustomId: string };

/** The top-level fields of an index document (asset-rules.ts indexDoc); `id` is the key column `seq`. */
const INDEX_ROOTS = new Set(['customId', 'displayName', 'description', 'parentId', 'template', 'attributes']);

/** The stored answer keeps no `id` (it is `seq`, unknown before the insert): spliced in front when read. */
const withId = (seq: number, stored: string): string => {
  const inner = stored.slice(stored.indexOf('{') + 1).trimStart();
  return inner.startsWith('}') ? `{"id":${seq}}` : `{"id":${seq},${inner}`;
};
function stored(doc: Record<string, unknown>): string;
function stored(doc: Record<string, unknown>, asText: false): Record<string, unknown>;
function stored(doc: Record<string, unknown>, asText = true): string | Record<string, unknown> {
  const { id: _id, ...rest } = doc;
  return asText ? JSON.stringify(rest) : rest;
}

type IndexRow = [path: string, t: number, elem: number, num: number | null, str: string | null, ci: string | null, usr: string | null, uci: string | null];

/** The value index rows of an answer, with the sort keys of strings; `complete` false beyond the index's caps. */
function indexRows(doc: Record<string, unknown>): { complete: boolean; rows: IndexRow[] } {
  const index = documentIndex(indexDoc(doc), INDEX_ROOTS, { words: false, markers: true });
  return {
    complete: index.complete,
    rows: index.rows.map(([path, t, elem, num, str]) => {
      const keys = t === VALUE_KIND.string && str !== null ? sortKeys(str) : undefined;
      return [path, t, elem, num, str, keys?.ci ?? null, keys?.user ?? null, keys?.userCi ?? null];
    }),
  };
}

/** The paths whose rows differ between two sets of rows. */
function changedPaths(before: IndexRow[], after: IndexRow[]): Set<string> {
  const byPath = (rows: IndexRow[]) => {
    const m = new Map<string, string[]>();
    for (const r of rows) {
      const list = m.get(r[0]) ?? [];
      list.push(JSON.stringify(r));
      m.set(r[0], list);
    }
    return new Map([...m].map(([k, v]) => [k, v.sort().join('\n')]));
  };
  const a = byPath(before);
  const b = byPath(after);
  const changed = new Set<string>();
  for (const [path, text] of a) if (b.get(path) !== text) changed.add(path);
  for (const path of b.keys()) if (!a.has(path)) changed.add(path);
  return changed;
}
/** Value rows written by one statement (8 bound values each). */
const ROWS_PER_STATEMENT = 100;
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

/** One asset's guarded state write, as a batch of them carries it (AssetsRepository.writeStates). */
interface StateWrite {
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

interface AssetLookups {
  byId: (key: { id: number }) => Promise<AssetRowRead | undefined>;
  byTemplateId: (key: { templateId: number; customId: string }) => Promise<AssetRowRead | undefined>;
  byTemplateCustomId: (key: { templateCustomId: string; customId: string }) => Promise<AssetRowRead | undefined>;
}

/** SQL of assets, their versions and their value index; every statement names the engine's scope. */
export class AssetsRepository {
  private readonly prepared = new PreparedQueries(300);
  /** Batched lookups outside transactions: of reads, and of writes (with the template's text, which a write checks). */
  private readonly lookups: Record<'read' | 'write', AssetLookups>;
  /** Where the value index of the ACTIVE versions is (platform/query), for the asset aliased `a`. */
  readonly source: ValueIndexSource;

  /** Pages of the assets a query selects. */
  readonly lists: AssetLists;
  /** Whether the engine runs several writes as one statement (Dialect.oneStatement). */
  private readonly combines: boolean;
  /** Guarded state writes outside transactions, batched per turn: one statement writes them all (PostgreSQL). */
  private readonly stateWrites: (write: StateWrite) => Promise<boolean>;

  constructor(
    private readonly root: Db,
    private readonly scope: string,
    private readonly dialect: Dialect,
  ) {
    this.combines = dialect.oneStatement([sql`SELECT 1`]) !== undefined;
    this.lists = new AssetLists(scope, dialect);
    this.source = { itemsTable: 'dm_assets', valuesTable: 'dm_asset_values', scope: [['scope', scope]], alias: 'a' };
    const columns = ['a.seq', 'a.template_id', 'a.custom_id', 'a.parent_id', 'a.head_on', 'a.active_on', 'a.created_on', 'a.created_by', 'a.rev', 't.restricted'] as const;
    const lookup = <In>(name: string, recordColumns: Record<string, JsonRecordColumn>, record: (input: In) => Record<string, unknown>, join: (records: any) => any, template: boolean) =>
      batchedLookup<In, AssetRowRead>(root, dialect, {
        name: `${name}${template ? ':t' : ''}`,
        columns: { s: 'text', ...recordColumns },
        record: (input) => ({ s: scope, ...record(input) }),
        query: (records) => join(records).select(['r.n', ...columns, dialect.jsonText('a.doc').as('doc'), ...(template ? [dialect.jsonText('t.doc').as('template_doc')] : [])]),
      });
    const withTemplate = (q: any) => dialect.joinByKey(q, 'dm_templates', 't', [['scope', 'r.s'], ['id', 'a.template_id']]);
    const lookups = (template: boolean): AssetLookups => ({
      byId: lookup('asset-by-id', { i: 'bigint' }, ({ id }: { id: number }) => ({ i: id }), (r) => withTemplate(dialect.joinByKey(r, 'dm_assets', 'a', [['scope', 'r.s'], ['seq', 'r.i']])), template),
      byTemplateId: lookup(
        'asset-by-template-id',
        { t: 'bigint', c: 'text' },
        ({ templateId, customId }: { templateId: number; customId: string }) => ({ t: templateId, c: customId }),
        (r) => withTemplate(dialect.joinByKey(r, 'dm_assets', 'a', [['scope', 'r.s'], ['template_id', 'r.t'], ['custom_id', 'r.c']])),
        template,
      ),
      byTemplateCustomId: lookup(
        'asset-by-template-custom-id',
        { t: 'text', c: 'text' },
        ({ templateCustomId, customId }: { templateCustomId: string; customId: string }) => ({ t: templateCustomId, c: customId }),
        (r) =>
          dialect.joinByKey(dialect.joinByKey(r, 'dm_templates', 't', [['scope', 'r.s'], ['custom_id', 'r.t']]), 'dm_assets', 'a', [
            ['scope', 'r.s'],
            ['template_id', 't.id'],
            ['custom_id', 'r.c'],
          ]),
        template,
      ),
    });
    this.lookups = { read: lookups(false), write: lookups(true) };
    this.stateWrites = batchPerTurn<StateWrite, boolean>(async (entries) => {
      const written = await this.writeStates(entries.map((e) => e.input));
      entries.forEach((e, n) => e.resolve(written.has(n)));
    }, 100);
  }

  /**
   * Guarded state writes of several assets as one statement (a transaction of its own): each asset's row is written
   * when its `rev` is still the one read, and its version and index rows only then. Answers the places of the writes
   * that were made (of two writes of one asset, at most one). A write that fails (a customId taken) fails the statement:
   * the turn batch then runs each write alone.
   */
  private async writeStates(writes: StateWrite[]): Promise<Set<number>> {
    const assets = writes.map((w, n) => ({ n, seq: w.seq, rev: w.rev, head_on: w.headOn, active_on: w.activeOn, doc: stored(w.doc, false), idx: w.idx, custom_id: w.customId, parent_id: w.parentId }));
    const versions = writes.flatMap((w, n) => (w.version ? [{ n, updated_on: w.version.updatedOn, updated_by: w.version.updatedBy, comment: w.version.comment, data: w.version.data }] : []));
    const removals = writes.flatMap((w, n) => w.paths.map((path) => ({ n, path })));
    const rows = writes.flatMap((w, n) => w.rows.map(([path, t, elem, num, str, ci, usr, uci]) => ({ n, path, t, elem, num, str, ci, usr, uci })));
    const args = [this.scope, JSON.stringify(assets), JSON.stringify(versions), JSON.stringify(removals), JSON.stringify(rows)];
    const db = this.root;
    const written = this.dialect.statementPart(0);
    const records = (p: (i: number) => any, i: number, columns: Record<string, JsonRecordColumn>) => sql`${this.dialect.jsonRecords(p(i), columns)}`;
    const parts = (p: (i: number) => any) => [
      db
        .updateTable('dm_assets')
        .from(records(p, 1, { n: 'integer', seq: 'bigint', rev: 'bigint', head_on: 'bigint', active_on: 'bigint', doc: 'json', idx: 'integer', custom_id: 'text', parent_id: 'bigint' }).as('r') as any)
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
            .selectFrom(records(p, 2, { n: 'integer', updated_on: 'bigint', updated_by: 'text', comment: 'text', data: 'json' }).as('v') as any)
            .innerJoin(`${written} as g` as any, 'g.n' as any, 'v.n' as any)
            .select([sql`${p(0)}`.as('scope'), 'g.seq as asset_id', 'v.updated_on', 'v.updated_by', 'v.comment', 'v.data'] as any),
        ),
      db
        .deleteFrom('dm_asset_values')
        .using([records(p, 3, { n: 'integer', path: 'text' }).as('x') as any, `${written} as g` as any])
        .whereRef('g.n' as any, '=', 'x.n' as any)
        .whereRef('dm_asset_values.item_seq', '=', 'g.seq' as any)
        .whereRef('dm_asset_values.path', '=', 'x.path' as any),
      db
        .insertInto('dm_asset_values')
        .columns(['scope', 'item_seq', 'path', 't', 'elem', 'num', 'str', 'ci', 'usr', 'uci'])
        .expression(
          db
            .selectFrom(records(p, 4, { n: 'integer', path: 'text', t: 'integer', elem: 'integer', num: 'double', str: 'text', ci: 'text', usr: 'text', uci: 'text' }).as('r') as any)
            .innerJoin(`${written} as g` as any, 'g.n' as any, 'r.n' as any)
            .select([sql`${p(0)}`.as('scope'), 'g.seq as item_seq', 'r.path', 'r.t', 'r.elem', 'r.num', 'r.str', 'r.ci', 'r.usr', 'r.uci'] as any),
        ),
      db.selectFrom(`${written} as g` as any).select('g.n' as any),
    ];
    const out = await this.prepared.run<{ n: number }>(db, 'states', (p) => this.compilable(db, this.dialect.oneStatement(parts(p) as any)!), args);
    return new Set(out.map((r) => Number(r.n)));
  }

  /**
   * The asset by id, or by customId within its template. Outside a transaction, one statement answers a turn's
   * lookups; `forWrite` reads its template's text too (as lookups inside transactions always do).
   */
  async find(db: Db, ref: AssetRef, forWrite = false): Promise<AssetRow | undefined> {
    if (db === this.root) {
      const l = this.lookups[forWrite ? 'write' : 'read'];
      const row = 'id' in ref ? await l.byId(ref) : 'templateId' in ref ? await l.byTemplateId(ref) : await l.byTemplateCustomId(ref);
      return row && toRow(row);
    }
    // In a transaction: one prepared statement per kind of reference.
    const base = (p: (i: number) => any) =>
      db
        .selectFrom('dm_assets as a')
        .innerJoin('dm_templates as t', (j) => j.onRef('t.id', '=', 'a.template_id').onRef('t.scope', '=', 'a.scope'))
        .select(['a.seq', 'a.template_id', 'a.custom_id', 'a.parent_id', 'a.head_on', 'a.active_on', 'a.created_on', 'a.created_by', 'a.rev', 't.restricted', this.dialect.jsonText('a.doc').as('doc')])
        // Writes read the template too: one statement for both.
        .select(this.dialect.jsonText('t.doc').as('template_doc'))
        .where('a.scope', '=', p(0));
    const rows =
      'id' in ref
        ? await this.prepared.run<AssetRowRead>(db, 'find:id', (p) => base(p).where('a.seq', '=', p(1)), [this.scope, ref.id])
        : 'templateId' in ref
          ? await this.prepared.run<AssetRowRead>(db, 'find:template-id', (p) => base(p).where('a.template_id', '=', p(1)).where('a.custom_id', '=', p(2)), [this.scope, ref.templateId, ref.customId])
          : await this.prepared.run<AssetRowRead>(db, 'find:template-custom-id', (p) => base(p).where('t.custom_id', '=', p(1)).where('a.custom_id', '=', p(2)), [this.scope, ref.templateCustomId, ref.customId]);
    const row = rows[0];
    return row && toRow(row);
  }

  /** Inserts the asset with its ACTIVE answer (`doc`, its id not yet known) and that answer's index rows; answers its id. */
  async insert(
    db: Db,
    a: { templateId: number; customId: string | null; parentId: number | null; on: number; by: string; doc: Record<string, unknown>; version: { updatedOn: number; updatedBy: string; comment: string; data: VersionData } },
  ): Promise<number> {
    const rows = await this.prepared.run<{ seq: number }>(
      db,
      'insert-asset',
      (p) =>
        db
          .insertInto('dm_assets')
          .values({ scope: p(0), template_id: p(1), custom_id: p(2), parent_id: p(3), head_on: p(4), active_on: p(4), created_on: p(4), created_by: p(5), doc: p(6), idx: p(7) })
          .returning('seq'),
      [this.scope, a.templateId, a.customId, a.parentId, a.on, a.by, stored(a.doc), 0],
    );
    const seq = Number(rows[0].seq);
    // Its index rows, as a change from an asset without any (the answer as inserted, whose id is now known).
    const doc = { ...a.doc, id: seq };
    await this.setState(db, seq, { customId: a.customId, parentId: a.parentId, headOn: a.on, activeOn: a.on, doc }, { customId: a.customId, parentId: a.parentId, doc: {} }, a.version);
    return seq;
  }

  /**
   * The asset's state: its identity, HEAD and ACTIVE, and the ACTIVE version's answer with its value index rows; with
   * `version`, a new version is added too. With the answer it replaces (`previous`), only the index rows of the paths
   * that changed are rewritten. With `guard` (the `rev` the caller read), nothing is written unless the asset's `rev`
   * still is that value: StaleRead then. PostgreSQL writes it all in one statement (Dialect.oneStatement) whose parts
   * write only when the guarded UPDATE did, so a single update needs no transaction; SQLite runs one part after the
   * other, the guarded UPDATE first.
   */
  async setState(
    db: Db,
    seq: number,
    s: { customId: string | null; parentId: number | null; headOn: number; activeOn: number; doc: Record<string, unknown> },
    previous?: { customId: string | null; parentId: number | null; doc: Record<string, unknown> },
    version?: { updatedOn: number; updatedBy: string; comment: string; data: VersionData },
    guard?: number,
  ): Promise<void> {
    const index = indexRows(s.doc);
    const before = previous ? indexRows(previous.doc) : undefined;
    // A new asset has no rows yet: nothing to delete.
    const fresh = previous !== undefined && Object.keys(previous.doc).length === 0;
    const sameKeys = previous !== undefined && previous.customId === s.customId && previous.parentId === s.parentId;
    const changed = before?.complete && index.complete ? changedPaths(before.rows, index.rows) : undefined;
    const paths = changed ? [...changed] : [];
    const rows = !index.complete ? [] : changed ? index.rows.filter((r) => changed.has(r[0])) : index.rows;
    // Which of the item's index rows go first: all of them, those of the changed paths, or none (a new asset).
    const removal = !changed ? 'all' : paths.length > 0 && !fresh ? 'paths' : 'none';
    // Arguments: 0 scope, 1 seq, 2 head, 3 active, 4 doc, 5 idx, 6 customId, 7 parentId, 8..11 the version, 12 the
    // guard, 13 the rows as JSON (PostgreSQL), then the changed paths, then the rows (8 values each; SQLite).
    const args: unknown[] = [this.scope, seq, s.headOn, s.activeOn, stored(s.doc), index.complete ? 1 : 2, s.customId, s.parentId];
    args.push(...(version ? [version.updatedOn, version.updatedBy, version.comment, JSON.stringify(version.data)] : [null, null, null, null]));
    args.push(guard ?? null, this.combines ? JSON.stringify(rows.map(([path, t, elem, num, str, ci, usr, uci]) => ({ path, t, elem, num, str, ci, usr, uci }))) : null);
    const firstPath = args.length;
    args.push(...paths);
    const firstRow = args.length;
    if (!this.combines) for (const r of rows) args.push(...r);
    const key = `state:${version ? 'v' : ''}:${sameKeys ? 's' : 'k'}:${guard === undefined ? '' : 'g'}:${removal}${paths.length}:${rows.length > 0 ? (this.combines ? 'r' : rows.length) : 0}`;
    const update = (p: (i: number) => any) => {
      const values = { head_on: p(2), active_on: p(3), doc: p(4), idx: p(5), rev: sql<number>`rev + 1`, ...(sameKeys ? {} : { custom_id: p(6), parent_id: p(7) }) };
      const q = db.updateTable('dm_assets').set(values).where('scope', '=', p(0)).where('seq', '=', p(1));
      return (guard === undefined ? q : q.where('rev', '=', p(12))).returning('seq');
    };
    const removeRows = (p: (i: number) => any) => {
      // By the item's key alone (unique across scopes): the planner walks the item's rows, never the path-major index.
      const q = db.deleteFrom('dm_asset_values').where('item_seq', '=', p(1));
      return removal === 'all' ? q : q.where('path', 'in', paths.map((_, n) => p(firstPath + n)));
    };
    // Outside a transaction (a single update on PostgreSQL), a guarded write that replaces known paths goes with the
    // turn's other writes as one statement.
    if (this.combines && db === this.root && guard !== undefined && removal !== 'all') {
      const done = await this.stateWrites({ seq, rev: guard, headOn: s.headOn, activeOn: s.activeOn, doc: s.doc, idx: index.complete ? 1 : 2, customId: s.customId, parentId: s.parentId, version, paths: removal === 'paths' ? paths : [], rows });
      if (!done) throw new StaleRead(`asset ${seq}`);
      return;
    }
    let written: unknown[];
    if (this.combines) {
      // One statement: the UPDATE answers the asset's key when it wrote; the other parts read it, so they write only then.
      const guardPart = this.dialect.statementPart(0);
      const parts = (p: (i: number) => any) => {
        const out: Array<Compilable<unknown> & Expression<unknown>> = [update(p) as any];
        if (version) {
          out.push(
            db
              .insertInto('dm_asset_versions')
              .columns(['scope', 'asset_id', 'updated_on', 'updated_by', 'comment', 'data'])
              .expression(db.selectFrom(`${guardPart} as g` as any).select([sql`${p(0)}`.as('scope'), sql.ref('g.seq').as('asset_id'), sql`${p(8)}`.as('updated_on'), sql`${p(9)}`.as('updated_by'), sql`${p(10)}`.as('comment'), sql`${p(11)}`.as('data')])) as any,
          );
        }
        if (removal !== 'none') out.push(removeRows(p).where(sql<boolean>`exists (select 1 from ${sql.table(guardPart)})`) as any);
        if (rows.length > 0) {
          const records = this.dialect.jsonRecords(p(13), { path: 'text', t: 'integer', elem: 'integer', num: 'double', str: 'text', ci: 'text', usr: 'text', uci: 'text' });
          out.push(
            db
              .insertInto('dm_asset_values')
              .columns(['scope', 'item_seq', 'path', 't', 'elem', 'num', 'str', 'ci', 'usr', 'uci'])
              .expression(
                db
                  .selectFrom(`${guardPart} as g` as any)
                  .crossJoin(sql`${records}`.as('r') as any)
                  .select([sql`${p(0)}`.as('scope'), sql.ref('g.seq').as('item_seq'), ...(['path', 't', 'elem', 'num', 'str', 'ci', 'usr', 'uci'] as const).map((c) => sql.ref(`r.${c}`).as(c))]),
              ) as any,
          );
        }
        out.push(db.selectFrom(`${guardPart} as g` as any).select(sql.ref('g.seq').as('seq')) as any);
        return out;
      };
      written = await this.prepared.run(db, key, (p) => this.compilable(db, this.dialect.oneStatement(parts(p))!), args);
    } else {
      // SQLite: each part its own prepared statement (built only when its shape is first seen); the guarded UPDATE first.
      written = await this.prepared.run(db, `${key}#u`, (p) => update(p), args);
      if (written.length > 0) {
        if (version) await this.prepared.run(db, `${key}#v`, (p) => db.insertInto('dm_asset_versions').values({ scope: p(0), asset_id: p(1), updated_on: p(8), updated_by: p(9), comment: p(10), data: p(11) }), args);
        if (removal !== 'none') await this.prepared.run(db, `${key}#d`, (p) => removeRows(p), args);
        for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
          const count = Math.min(ROWS_PER_STATEMENT, rows.length - i);
          await this.prepared.run(
            db,
            `${key}#i${i}:${count}`,
            (p) =>
              db.insertInto('dm_asset_values').values(
                Array.from({ length: count }, (_, k) => {
                  const at = firstRow + 8 * (i + k);
                  return { scope: p(0), item_seq: p(1), path: p(at), t: p(at + 1), elem: p(at + 2), num: p(at + 3), str: p(at + 4), ci: p(at + 5), usr: p(at + 6), uci: p(at + 7) };
                }),
              ),
            args,
          );
        }
      }
    }
    if (written.length === 0) throw new StaleRead(`asset ${seq}`);
  }

  /** A raw statement as something prepareQuery compiles. */
  private compilable(db: Db, raw: RawBuilder<unknown>): Compilable<unknown> {
    return { compile: () => raw.compile(db) };
  }

  /** The version of the asset with that updatedOn. */
  async version(db: Db, assetId: number, updatedOn: number): Promise<VersionRow | undefined> {
    const rows = await this.prepared.run<{ updated_on: number; updated_by: string; comment: string; data: string }>(
      db,
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
    return r && { updatedOn: Number(r.updated_on), updatedBy: r.updated_by, comment: r.comment, data: JSON.parse(r.data) as VersionData };
  }

  /** updatedOn of the version before (`PREVIOUS`) or after (`NEXT`) the given one. */
  async neighbour(db: Db, assetId: number, updatedOn: number, which: 'PREVIOUS' | 'NEXT'): Promise<number | undefined> {
    const before = which === 'PREVIOUS';
    const rows = await this.prepared.run<{ updated_on: number }>(
      db,
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
    const rows = await db.selectFrom('dm_assets').select(['seq', 'parent_id']).where('scope', '=', this.scope).where('parent_id', 'in', parents).orderBy('seq').execute();
    for (const r of rows) out.get(Number(r.parent_id))?.push(Number(r.seq));
    return out;
  }

  async delete(db: Db, seq: number): Promise<void> {
    await db.deleteFrom('dm_asset_values').where('item_seq', '=', seq).execute();
    await db.deleteFrom('dm_asset_versions').where('scope', '=', this.scope).where('asset_id', '=', seq).execute();
    await db.deleteFrom('dm_assets').where('scope', '=', this.scope).where('seq', '=', seq).execute();
  }

  /** The assets' ACTIVE answers as JSON text, by id. */
  async docs(db: Db, seqs: number[]): Promise<Map<number, string>> {
    if (seqs.length === 0) return new Map();
    const rows = await db.selectFrom('dm_assets').select(['seq', this.dialect.jsonText('doc').as('doc')]).where('scope', '=', this.scope).where('seq', 'in', seqs).execute();
    return new Map(rows.map((r) => [Number(r.seq), withId(Number(r.seq), r.doc as string)]));
  }

  /** The assets' ACTIVE answers as JSON text, by id, and the children of each of them in id order: one statement. */
  async docsAndChildren(db: Db, seqs: number[]): Promise<{ docs: Map<number, string>; children: Map<number, number[]> }> {
    const docs = new Map<number, string>();
    const children = new Map<number, number[]>();
    if (seqs.length === 0) return { docs, children };
    const rows = await db
      .selectFrom('dm_assets')
      .select(['seq', sql<number | null>`NULL`.as('parent'), (this.dialect.jsonText('doc') as RawBuilder<string | null>).as('doc')])
      .where('scope', '=', this.scope)
      .where('seq', 'in', seqs)
      .unionAll(db.selectFrom('dm_assets').select(['seq', 'parent_id as parent', sql<string | null>`NULL`.as('doc')]).where('scope', '=', this.scope).where('parent_id', 'in', seqs))
      .execute();
    for (const r of rows) {
      const seq = Number(r.seq);
      if (r.doc !== null) docs.set(seq, withId(seq, r.doc as string));
      else if (r.parent !== null) children.set(Number(r.parent), [...(children.get(Number(r.parent)) ?? []), seq]);
    }
    for (const kids of children.values()) kids.sort((a, b) => a - b);
    for (const seq of docs.keys()) if (!children.has(seq)) children.set(seq, []);
    return { docs, children };
  }

  /** Ids of the assets of a template (at most `limit`), in id order. */
  async assetsOfTemplate(db: Db, templateId: number, limit: number): Promise<number[]> {
    const rows = await db.selectFrom('dm_assets').select('seq').where('scope', '=', this.scope).where('template_id', '=', templateId).orderBy('seq').limit(limit).execute();
    return rows.map((r) => Number(r.seq));
  }
}
