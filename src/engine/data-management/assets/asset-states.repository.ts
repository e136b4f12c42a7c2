// Writes of an asset's state: its row, a new version and the value index rows of its ACTIVE answer, guarded by the
// asset's write counter; on PostgreSQL one statement, and the guarded writes of one turn one statement together.
import { sql, type Compilable, type Expression, type Kysely, type RawBuilder } from 'kysely';
import { batchPerTurn } from '../../../platform/async/turn-batch.js';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import { StaleRead } from '../../../platform/db/db-errors.js';
import { PreparedQueries } from '../../../platform/db/prepared-query.js';
import { targetOf, type DataAccess } from '../../../platform/db/data-access.js';
import type { DmTables } from '../dm.tables.js';
import type { VersionData } from './asset.schema.js';
import { changedPaths, indexRows, stored } from './asset-index-rows.js';
import { batchArgs, batchParts, VALUE_COLUMNS, VALUE_RECORD, type StateWrite } from './asset-state-batch.js';

type Db = Kysely<DmTables>;

/** Value rows written by one statement (8 bound values each). */
const ROWS_PER_STATEMENT = 100;

/** SQL of the assets' state writes; every statement names the engine's scope. */
export class AssetStates {
  private readonly prepared = new PreparedQueries(300);
  /** Whether the engine runs several writes as one statement (Dialect.combinesWrites). */
  private readonly combines: boolean;
  /** Guarded state writes outside transactions, batched per turn: one statement writes them all (PostgreSQL). */
  private readonly stateWrites: (write: StateWrite) => Promise<boolean>;

  private readonly root: Db;

  constructor(
    private readonly data: DataAccess<DmTables>,
    private readonly scope: string,
    private readonly dialect: Dialect,
  ) {
    this.root = data.db;
    this.combines = dialect.combinesWrites;
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
    const db = this.root;
    const out = await this.prepared.run<{ n: number }>(
      this.data,
      'states',
      (p) => this.compilable(db, this.dialect.oneStatement(batchParts(db, this.dialect, p) as any)!),
      batchArgs(this.scope, writes),
    );
    return new Set(out.map((r) => Number(r.n)));
  }

  /**
   * The asset's state: its identity, HEAD and ACTIVE, and the ACTIVE version's answer with its value index rows; with
   * `version`, a new version is added too. With the answer it replaces (`previous`), only the index rows of the paths
   * that changed are rewritten. With `guard` (the `rev` the caller read), nothing is written unless the asset's `rev`
   * still is that value: StaleRead then. PostgreSQL writes it all in one statement (Dialect.oneStatement) whose parts
   * write only when the guarded UPDATE did, so a single update needs no transaction; outside a transaction that
   * statement is shared with the turn's other guarded writes (writeStates). SQLite runs one part after the other, the
   * guarded UPDATE first.
   */
  async write(
    db: Db,
    seq: number,
    s: {
      customId: string | null;
      parentId: number | null;
      headOn: number;
      activeOn: number;
      doc: Record<string, unknown>;
    },
    previous?: { customId: string | null; parentId: number | null; doc: Record<string, unknown> },
    version?: { updatedOn: number; updatedBy: string; comment: string; data: VersionData },
    guard?: number,
  ): Promise<void> {
    // The handle outside a transaction: its prepared reads may run directly (SQLite).
    const on = targetOf(this.data, db);
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
    const args: unknown[] = [
      this.scope,
      seq,
      s.headOn,
      s.activeOn,
      stored(s.doc),
      index.complete ? 1 : 2,
      s.customId,
      s.parentId,
    ];
    args.push(
      ...(version
        ? [version.updatedOn, version.updatedBy, version.comment, JSON.stringify(version.data)]
        : [null, null, null, null]),
    );
    args.push(
      guard ?? null,
      this.combines
        ? JSON.stringify(
            rows.map(([path, t, elem, num, str, ci, usr, uci]) => ({ path, t, elem, num, str, ci, usr, uci })),
          )
        : null,
    );
    const firstPath = args.length;
    args.push(...paths);
    const firstRow = args.length;
    if (!this.combines) for (const r of rows) args.push(...r);
    const key = `state:${version ? 'v' : ''}:${sameKeys ? 's' : 'k'}:${guard === undefined ? '' : 'g'}:${removal}${paths.length}:${rows.length > 0 ? (this.combines ? 'r' : rows.length) : 0}`;
    const update = (p: (i: number) => any) => {
      const values = {
        head_on: p(2),
        active_on: p(3),
        doc: p(4),
        idx: p(5),
        rev: sql<number>`rev + 1`,
        ...(sameKeys ? {} : { custom_id: p(6), parent_id: p(7) }),
      };
      const q = db.updateTable('dm_assets').set(values).where('scope', '=', p(0)).where('seq', '=', p(1));
      return (guard === undefined ? q : q.where('rev', '=', p(12))).returning('seq');
    };
    const removeRows = (p: (i: number) => any) => {
      // By the item's key alone (unique across scopes): the planner walks the item's rows, never the path-major index.
      const q = db.deleteFrom('dm_asset_values').where('item_seq', '=', p(1));
      return removal === 'all'
        ? q
        : q.where(
            'path',
            'in',
            paths.map((_, n) => p(firstPath + n)),
          );
    };
    // Outside a transaction (a single update on PostgreSQL), a guarded write that replaces known paths goes with the
    // turn's other writes as one statement.
    if (this.combines && db === this.root && guard !== undefined && removal !== 'all') {
      const done = await this.stateWrites({
        seq,
        rev: guard,
        headOn: s.headOn,
        activeOn: s.activeOn,
        doc: s.doc,
        idx: index.complete ? 1 : 2,
        customId: s.customId,
        parentId: s.parentId,
        version,
        paths: removal === 'paths' ? paths : [],
        rows,
      });
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
              .expression(
                db
                  .selectFrom(`${guardPart} as g` as any)
                  .select([
                    sql`${p(0)}`.as('scope'),
                    sql.ref('g.seq').as('asset_id'),
                    sql`${p(8)}`.as('updated_on'),
                    sql`${p(9)}`.as('updated_by'),
                    sql`${p(10)}`.as('comment'),
                    sql`${p(11)}`.as('data'),
                  ]),
              ) as any,
          );
        }
        if (removal !== 'none')
          out.push(removeRows(p).where(sql<boolean>`exists (select 1 from ${sql.table(guardPart)})`) as any);
        if (rows.length > 0) {
          const records = this.dialect.jsonRecords(p(13), VALUE_RECORD);
          out.push(
            db
              .insertInto('dm_asset_values')
              .columns(['scope', 'item_seq', ...VALUE_COLUMNS])
              .expression(
                db
                  .selectFrom(`${guardPart} as g` as any)
                  .crossJoin(sql`${records}`.as('r') as any)
                  .select([
                    sql`${p(0)}`.as('scope'),
                    sql.ref('g.seq').as('item_seq'),
                    ...VALUE_COLUMNS.map((c) => sql.ref(`r.${c}`).as(c)),
                  ]),
              ) as any,
          );
        }
        out.push(db.selectFrom(`${guardPart} as g` as any).select(sql.ref('g.seq').as('seq')) as any);
        return out;
      };
      written = await this.prepared.run(
        on,
        key,
        (p) => this.compilable(db, this.dialect.oneStatement(parts(p))!),
        args,
      );
    } else {
      // SQLite: each part its own prepared statement (built only when its shape is first seen); the guarded UPDATE first.
      written = await this.prepared.run(on, `${key}#u`, (p) => update(p), args);
      if (written.length > 0) {
        if (version)
          await this.prepared.run(
            on,
            `${key}#v`,
            (p) =>
              db.insertInto('dm_asset_versions').values({
                scope: p(0),
                asset_id: p(1),
                updated_on: p(8),
                updated_by: p(9),
                comment: p(10),
                data: p(11),
              }),
            args,
          );
        if (removal !== 'none') await this.prepared.run(on, `${key}#d`, (p) => removeRows(p), args);
        for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
          const count = Math.min(ROWS_PER_STATEMENT, rows.length - i);
          await this.prepared.run(
            on,
            `${key}#i${i}:${count}`,
            (p) =>
              db.insertInto('dm_asset_values').values(
                Array.from({ length: count }, (_, k) => {
                  const at = firstRow + 8 * (i + k);
                  return {
                    scope: p(0),
                    item_seq: p(1),
                    path: p(at),
                    t: p(at + 1),
                    elem: p(at + 2),
                    num: p(at + 3),
                    str: p(at + 4),
                    ci: p(at + 5),
                    usr: p(at + 6),
                    uci: p(at + 7),
                  };
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
}
