// The SQL of a walk of a sort path's index rows (AssetLists.walk): its guards, the statement that checks them itself
// and the walk's page, with the decisions taken from what the guards read.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { VALUE_KIND, walkedKind } from '../../../platform/query/index.js';
import type { WalkShape } from './walk-shapes.js';

/** The keys of the universe of a query: the assets of the scope the caller may see (CTE). */
export const ASSET_UNIVERSE = 'q__r';

/**
 * For a query sorted by one indexed value: the value's path, the sort and the filters as a condition on one asset
 * (aliased `a`), so that a page can be read by walking the path's index rows in order (AssetLists.walk).
 */
export interface AssetWalk {
  path: string;
  direction: 'ASC' | 'DESC';
  stringKey: string;
  where?: RawBuilder<SqlBool>;
  /** The query's shape as far as its walk's guards go (its filters, path and sort key, who may read): walk-shapes.ts. */
  key: string;
}

/**
 * A page's limit or offset written into the walk's text: with them as parameters PostgreSQL never took the walk's
 * generic plan (it costs a parameter limit as a tenth of the rows) and planned the walk at every run, prepared or not;
 * as literals it does after five runs. One text per page size and start, which the statement cache bounds.
 */
function pageBound(n: number): RawBuilder<number> {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a page bound: ${n}`);
  return sql.lit(n);
}

/**
 * Where a walk tests its rows against the set of the matches rather than by probes of each row's asset: matches <
 * HASHED_SET * rows walked (the set costs about a tenth of a probe a match, plus a quarter of a probe a walked row).
 */
const HASHED_SET = 4;

/**
 * HASHED_SET where the statement reads the set anyway (for the count, guardedCtes): the hash is then built from rows
 * already read (2,500 matches: 0.1 ms), against one probe of about 2 µs a walked row. The status shape's statement
 * (2,500 matches, 401 rows walked): 2,093 µs of the backend's CPU with probes, 1,877 hashed.
 */
const HASHED_SHARED_SET = 32;

/**
 * A shape whose sort path held no walkable kind is read again (its guards) every this many queries, and answered by
 * the general page in between: the kind is a property of the stored values, which writes change.
 */
const REREAD_UNWALKABLE = 64;

/** What a walk's guards read: the count, the highest asset id, the first and last kinds at the path, unindexed assets. */
export interface Guards {
  n: number;
  max: number;
  first: number | null;
  last: number | null;
  unindexed: boolean;
  /** Whether the statement that read them walked too (its guards held and the walk paid: guardedCtes' `go`). */
  went: boolean;
}

/** The kind of exact scalar every index row at the path holds, where a walk of them is in the sort's order. */
export function walkableKind(g: Guards): number | undefined {
  if (g.first === null || g.first > VALUE_KIND.boolean || g.last !== g.first || g.unindexed) return undefined;
  return g.first;
}

/** Whether a walk is expected to be short: rows walked ~ wanted * assets / matches, against one probe per match. */
export const worthWalking = (total: number, max: number, wanted: number): boolean =>
  total > 0 && wanted * max <= total * total;

/** Whether a walk tests its rows against the set of the matches (HASHED_SET). */
export const hashedSet = (total: number, max: number, wanted: number): boolean =>
  total * total < HASHED_SET * wanted * max;

/** The parts of a query that its walk's statements name (AssetLists.query). */
export interface WalkParts {
  /** The asset `a` is visible (no hidden template). */
  visible: RawBuilder<SqlBool>;
  /** The universe `q__r` (a subquery). */
  universe: RawBuilder<unknown>;
  /** The query's set of keys (AssetQuery.set), where it has one. */
  set?: RawBuilder<unknown>;
  /** The set's keys as a statement of its own (the universe with it), for a hashed test. */
  setKeys?: RawBuilder<unknown>;
  /** The count of the matches as a statement of its own. */
  count: RawBuilder<number>;
  /** The count of the matches in the set named `name` (a CTE in the statement), as a scalar expression. */
  countOf(name: string): RawBuilder<number>;
}

/**
 * Which statement a walked query of a shape runs first (walk): with no guess, its guards; where the guess is a kind
 * and a walk that pays, the walk checking its guards itself; otherwise the general page, which counts (a shape
 * whose kind was unusable has its guards read again every REREAD_UNWALKABLE queries).
 */
export function walkRoute(shape: WalkShape | undefined, wanted: number): { walk?: number; general?: true } {
  if (!shape) return {};
  if (shape.kind !== undefined)
    return worthWalking(shape.total, shape.max, wanted) ? { walk: shape.kind } : { general: true };
  return shape.uses >= REREAD_UNWALKABLE ? {} : { general: true };
}

/** The walk's statements over the assets of one scope. */
export class WalkSql {
  constructor(private readonly scope: string) {}

  /**
   * Each guard reads one index entry in an index's order: as `WHERE ... LIMIT 1` PostgreSQL's planner, expecting many
   * rows, scanned the whole table when none matched (300 ms at 100,000 assets). The order of the index rows is the
   * sort's order only for one kind of exact scalar at the path (its first and last kinds in the index are the same).
   */
  guardColumns(path: string): RawBuilder<unknown> {
    return sql`(SELECT t FROM dm_asset_values WHERE scope = ${this.scope} AND path = ${path} ORDER BY scope, path, t LIMIT 1) AS first,
      (SELECT t FROM dm_asset_values WHERE scope = ${this.scope} AND path = ${path} ORDER BY scope DESC, path DESC, t DESC LIMIT 1) AS last,
      (SELECT 1 FROM dm_assets WHERE scope = ${this.scope} AND idx <> 1 ORDER BY scope, seq LIMIT 1) AS unindexed,
      (SELECT max(seq) FROM dm_assets) AS max`;
  }

  /**
   * The common table expressions of a walk that checks its guards itself (walking values of `kind`): the universe, the
   * set of the matches read once (`q__s`: the count reads it, and the walk's test where it is hashed), and `q__d`, the
   * guards with the count and the decisions afterGuards takes, in SQL (`go`: the walk runs; `hashed`: its rows are
   * tested against the set).
   */
  guardedCtes(w: AssetWalk, parts: WalkParts, kind: number, wanted: number) {
    const real = (x: string) => sql`CAST(${sql.ref(x)} AS double precision)`;
    const ctes = [sql`${sql.id(ASSET_UNIVERSE)} AS ${parts.universe}`];
    if (parts.set) ctes.push(sql`q__s AS MATERIALIZED (${parts.set})`);
    ctes.push(
      sql`q__g AS MATERIALIZED (SELECT ${this.guardColumns(w.path)}, ${parts.set ? parts.countOf('q__s') : sql`(SELECT count(*) FROM ${sql.id(ASSET_UNIVERSE)})`} AS n)`,
      sql`q__d AS MATERIALIZED (SELECT q__g.*,
        CASE WHEN q__g.first = ${sql.lit(kind)} AND q__g.last = ${sql.lit(kind)} AND q__g.unindexed IS NULL AND q__g.n > 0
          AND ${sql.lit(wanted)} * ${real('q__g.max')} <= ${real('q__g.n')} * ${real('q__g.n')} THEN 1 ELSE 0 END AS go,
        CASE WHEN ${real('q__g.n')} * ${real('q__g.n')} < ${sql.lit(HASHED_SHARED_SET * wanted)} * ${real('q__g.max')} THEN 1 ELSE 0 END AS hashed
        FROM q__g)`,
    );
    return sql.join(ctes, sql`, `);
  }

  /**
   * A walk's page statement for values of `kind`. `hashed`: true or false, the rows tested against the set of the
   * matches or by probes of each row's asset; `guarded`, the decisions of `q__d` (guardedCtes).
   */
  page(
    w: AssetWalk,
    kind: number,
    parts: WalkParts,
    start: number,
    limit: number,
    hashed: boolean | 'guarded',
  ): RawBuilder<unknown> {
    // The rows of the path's kind in the sort's order (walkedKind: in sort modes other than '' strings walk their key's
    // index, partial on the string kind, named as a literal so that both planners match it). No arrays at the path (no
    // marker rows, checked by the guards): every row is elem 0, and the walk reads the index alone.
    const walked = walkedKind(kind, w.stringKey, w.direction);
    // Each walked row is tested by index probes of its asset (about 2 µs a row: price >= 900 walked 982 rows, 2.5 ms,
    // 3,000 buffers), or against the set of the matches, read once into a hash (PostgreSQL: a hashed SubPlan, about
    // 0.2 µs a match to build, 0.5 µs a walked row: the same walk 0.76 ms, 83 buffers). The set pays where the
    // matches are few against the rows walked: matches < HASHED_SET * walked, with walked ~ wanted * assets / matches.
    // Under OR the IN is not made a join (PostgreSQL's planner pulls up only a top-level IN), which would not keep the
    // walk's order; SQLite reads the set once into an ephemeral index.
    const probes = w.where ?? sql<SqlBool>`1 = 1`;
    const test = !parts.set
      ? probes
      : hashed === 'guarded'
        ? sql<SqlBool>`(CASE WHEN (SELECT q__d.hashed FROM q__d) = 1 THEN a.seq IN (SELECT q__s.seq FROM q__s) ELSE ${probes} END)`
        : hashed
          ? sql<SqlBool>`(a.seq IN (${parts.setKeys}) OR 1 = 0)`
          : probes;
    const go = hashed === 'guarded' ? sql<SqlBool>`(SELECT q__d.go FROM q__d) = 1 AND ` : sql``;
    // The asset `a` the filters test is its index row: its key is the row's, and the columns of the asset are read
    // only where a test needs them (one probe each: the document for values beyond the index, the template for hidden
    // ones, the dates), not for each row walked. Every asset is indexed (checked by the guards): idx is 1.
    const column = (name: string) => sql`(SELECT d.${sql.ref(name)} FROM dm_assets d WHERE d.seq = s.item_seq)`;
    return sql`SELECT a.seq FROM (SELECT s.item_seq AS seq, s.num, s.str, s.ci, s.usr, s.uci, 1 AS idx,
        ${column('doc')} AS doc, ${column('template_id')} AS template_id, ${column('active_on')} AS active_on, ${column('created_on')} AS created_on, ${column('created_by')} AS created_by
        FROM dm_asset_values s WHERE s.scope = ${this.scope} AND s.path = ${w.path} AND ${walked.rows('s')}) a
      WHERE ${go}${parts.visible} AND ${test}
      ORDER BY ${walked.order('a')}, a.seq ASC LIMIT ${pageBound(limit)} OFFSET ${pageBound(start)}`;
  }
}
