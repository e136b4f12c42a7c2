import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import { VALUE_KIND, type SortJoin } from '../../../platform/query/index.js';
import type { DmTables } from '../dm.tables.js';
import { LruMap } from '../../../platform/cache/lru-map.js';
import type { WalkShape } from './walk-shapes.js';
import {
  ASSET_UNIVERSE,
  type AssetWalk,
  type Guards,
  hashedSet,
  walkableKind,
  type WalkParts,
  walkRoute,
  WalkSql,
  worthWalking,
} from './asset-walk-sql.js';
import {
  type AssetPage,
  type PageDocs,
  type PageRows,
  type PageStatement,
  PageStatements,
  readPage,
  rowsOf,
} from './asset-page-rows.js';

type Db = Kysely<DmTables>;

/** A request's first statement (AssetLists.kept): a walk with its guards (`kind`), or the general page counting. */
interface KeptPage {
  statement: PageStatement;
  /** The shape's key (AssetWalk.key), for a walked query. */
  walkKey?: string;
  kind?: number;
  start: number;
  limit: number;
}

export { ASSET_UNIVERSE } from './asset-walk-sql.js';

export interface AssetQuery {
  set?: RawBuilder<unknown>;
  orderBy: RawBuilder<unknown>[];
  joins: SortJoin[];
  needsItemRow: boolean;
  /**
   * For a query sorted by one indexed value: the value's path, the sort and the filters as a condition on one asset
   * (aliased `a`), so that a page can be read by walking the path's index rows in order (AssetLists.walk).
   */
  walk?: AssetWalk;
  /** The paths of the indexed values the filters test (the set's value rows are read at these paths only). */
  filterPaths?: string[];
}

/** SQL of asset queries: one page of the assets a compiled query selects, and how many it selects. */
export class AssetLists {
  /** The guesses of the walk's guards by shape (walk). */
  private readonly shapes = new LruMap<WalkShape>(1_000);
  /** The first statement of recent requests, compiled, by request (kept). */
  private readonly firsts = new LruMap<KeptPage>(300);

  /** The walk's SQL. */
  private readonly walkSql: WalkSql;
  /** The page statements. */
  private readonly pages: PageStatements;

  constructor(
    private readonly scope: string,
    private readonly dialect: Dialect,
  ) {
    this.walkSql = new WalkSql(scope);
    this.pages = new PageStatements(scope, dialect);
  }

  /** The rows of a page statement (PageStatements.build), run; with the statement, to be kept (kept). */
  private async pageRows(
    db: Db,
    page: RawBuilder<unknown> | SelectQueryBuilder<any, any, any>,
    counted: boolean,
    attach: PageDocs | undefined,
    head?: { ctes: RawBuilder<unknown>; rows: RawBuilder<unknown> },
  ): Promise<PageRows & { statement: PageStatement }> {
    const statement = this.pages.build(db, page, counted, attach, head);
    return { ...(await readPage(db, statement)), statement };
  }

  /**
   * The page by walking the sort path's index rows in order and keeping the matching assets (each tested by index
   * probes), which stops after the page: the cost follows the rows walked, not the matches. Only where it gives exactly
   * the general plan's order: every row at the path is an exact scalar of one kind (no arrays, objects, long strings,
   * mixed kinds: markers make that two index probes), every asset is indexed, and the walk is expected to be short
   * (many matches). Assets without a value at the path sort last in both plans: when the walk finds fewer than the
   * page needs, no page (the general plan answers). No total where the general page is to count the matches itself.
   */
  private async walk(
    db: Db,
    w: NonNullable<AssetQuery['walk']>,
    parts: WalkParts,
    start: number,
    limit: number,
    attach: PageDocs | undefined,
    requestKey: string | undefined,
  ): Promise<{ total?: number; page?: PageRows }> {
    const wanted = start + limit;
    // A shape queried before: its guards are checked in the statement that walks (the walk runs only where they hold)
    // or, where the last query of the shape did not walk, not read at all (the general page counts): one statement
    // and round trip a query instead of two, which at one connection waited one after the other.
    const route = walkRoute(this.shapes.get(w.key), wanted);
    if (route.walk !== undefined) {
      const kind = route.walk;
      const rows = await this.pageRows(db, this.walkSql.page(w, kind, parts, start, limit, 'guarded'), false, attach, {
        ctes: this.walkSql.guardedCtes(w, parts, kind, wanted),
        rows: sql`SELECT 3, q__d.n, q__d.max, CAST(q__d.go AS text) FROM q__d
          UNION ALL SELECT 4, q__d.first, q__d.last, CAST(q__d.unindexed AS text) FROM q__d`,
      });
      if (requestKey !== undefined)
        this.firsts.set(requestKey, { statement: rows.statement, walkKey: w.key, kind, start, limit });
      const g = rows.guards!;
      this.remember(w.key, g);
      if (!g.went) return this.afterGuards(db, w, parts, g, start, limit, attach);
      return rows.ids.length < limit && start + rows.ids.length < g.n ? { total: g.n } : { total: g.n, page: rows };
    }
    if (route.general) return {};
    // The guards and the count in one round trip.
    const guards = await rowsOf(
      db,
      sql<{
        first: number | null;
        last: number | null;
        unindexed: number | null;
        max: number | null;
        n: number | string;
      }>`SELECT ${this.walkSql.guardColumns(w.path)}, (${parts.count}) AS n`,
    );
    const r = guards[0];
    const g: Guards = {
      n: Number(r.n),
      max: Number(r.max ?? 0),
      first: r.first === null ? null : Number(r.first),
      last: r.last === null ? null : Number(r.last),
      unindexed: r.unindexed !== null,
      went: false,
    };
    this.remember(w.key, g);
    return this.afterGuards(db, w, parts, g, start, limit, attach);
  }

  /** The walk after its guards were read (and it did not run with them): when they allow it and it pays, its page. */
  private async afterGuards(
    db: Db,
    w: NonNullable<AssetQuery['walk']>,
    parts: WalkParts,
    g: Guards,
    start: number,
    limit: number,
    attach: PageDocs | undefined,
  ): Promise<{ total: number; page?: PageRows }> {
    const total = g.n;
    const kind = walkableKind(g);
    if (kind === undefined || !worthWalking(total, g.max, start + limit)) return { total };
    const page = await this.pageRows(
      db,
      this.walkSql.page(w, kind, parts, start, limit, hashedSet(total, g.max, start + limit)),
      false,
      attach,
    );
    if (page.ids.length < limit && start + page.ids.length < total) return { total };
    return { total, page };
  }

  /** A shape's total counted by the general page, without its guards: the guess of its next query follows it. */
  private counted(key: string, total: number): void {
    const shape = this.shapes.get(key);
    if (shape) {
      shape.total = total;
      shape.uses++;
    }
  }

  /**
   * The page of a request (its filters, sorters, sort mode, who may read, start, limit and documents: `key`) asked
   * lately, by the statement compiled for it then, where the shape's guess still takes that statement; undefined
   * otherwise (the caller compiles the query). Compiling the query (the filters and sorters, Kysely's build and
   * compile) was about a fifth of the service's CPU a query.
   */
  async kept(db: Db, key: string): Promise<AssetPage | undefined> {
    const k = this.firsts.get(key);
    if (!k) return undefined;
    if (k.walkKey !== undefined) {
      const route = walkRoute(this.shapes.get(k.walkKey), k.start + k.limit);
      if (k.kind !== undefined ? route.walk !== k.kind : !route.general) return undefined;
    }
    const page = await readPage(db, k.statement);
    if (k.kind !== undefined) {
      const g = page.guards!;
      this.remember(k.walkKey!, g);
      // Where its guards no longer held, or assets without a value at the path are on the page: the query compiled.
      if (!g.went || (page.ids.length < k.limit && k.start + page.ids.length < g.n)) return undefined;
      return { total: g.n, ids: page.ids, docs: page.docs, children: page.children };
    }
    if (page.ids.length === 0) return k.start > 0 ? undefined : { total: 0, ids: [] };
    if (k.walkKey !== undefined) this.counted(k.walkKey, page.total!);
    return { total: page.total!, ids: page.ids, docs: page.docs, children: page.children };
  }

  /** What the guards found, kept as the guess for the shape's next query (walk). */
  private remember(key: string, g: Guards): void {
    this.shapes.set(key, { kind: walkableKind(g), total: g.n, max: g.max, uses: 0 });
  }

  /** Whether no asset of the scope holds an array at any of `paths` (so that the query's set names each asset once). */
  private oneRowPerAsset(paths: string[]): RawBuilder<SqlBool> {
    if (paths.length === 0) return sql<SqlBool>`1 = 1`;
    const arrays = (path: string) =>
      sql<SqlBool>`NOT EXISTS (SELECT 1 FROM dm_asset_values q__y WHERE q__y.scope = ${this.scope} AND q__y.path = ${path} AND q__y.t = ${sql.lit(VALUE_KIND.arrayMarker)})`;
    return sql<SqlBool>`(${sql.join([...new Set(paths)].sort().map(arrays), sql` AND `)})`;
  }

  /**
   * One page of the assets a compiled query selects, and how many it selects in all. `q.set` selects keys within the
   * universe `q__r` (the scope's assets but those of the templates `hiddenTemplates` selects: a subquery of their ids,
   * read in the statements' own snapshot instead of by a statement before them); the order refers to the asset aliased
   * `a`, its id breaking ties.
   */
  async query(
    db: Db,
    q: AssetQuery,
    hiddenTemplates: RawBuilder<unknown>,
    start: number,
    limit: number,
    attach?: PageDocs,
    /** The request, for its first statement to be kept (kept). */
    requestKey?: string,
  ): Promise<AssetPage> {
    // Without hidden templates (the common case) the first test holds once for the statement (PostgreSQL: an InitPlan;
    // SQLite: a constant subquery): no asset's template is read, not even a walked row's.
    const none = sql<SqlBool>`NOT EXISTS (${hiddenTemplates})`;
    const visible = sql<SqlBool>`(${none} OR a.template_id NOT IN (${hiddenTemplates}))`;
    const answer = (total: number, page: PageRows): AssetPage => ({
      total,
      ids: page.ids,
      docs: page.docs,
      children: page.children,
    });
    if (!q.set && q.orderBy.length === 0) {
      const count = await rowsOf(
        db,
        sql<{ n: number | string }>`SELECT count(*) AS n FROM dm_assets a WHERE a.scope = ${this.scope} AND ${visible}`,
      );
      const total = Number(count[0].n);
      if (limit === 0) return { total, ids: [] };
      const page = await this.pageRows(
        db,
        sql`SELECT a.seq FROM dm_assets a WHERE a.scope = ${this.scope} AND ${visible} ORDER BY a.seq LIMIT ${limit} OFFSET ${start}`,
        false,
        attach,
      );
      return answer(total, page);
    }
    const keep = sql<SqlBool>`(${none} OR NOT EXISTS (SELECT 1 FROM dm_assets x WHERE x.seq = q__k.seq AND x.template_id IN (${hiddenTemplates})))`;
    const matches = q.set
      ? sql`SELECT DISTINCT q__k.seq FROM (${q.set}) AS q__k WHERE ${keep}`
      : sql`SELECT seq FROM q__r`;
    const universe = sql`(SELECT a.seq FROM dm_assets a WHERE a.scope = ${this.scope} AND ${visible})`;
    // The set repeats an asset only through an array at a filter's path (one row per element; long strings and the
    // assets without index rows are parts disjoint from the value rows', and AND, OR and NOT are INTERSECT, UNION and
    // EXCEPT, which keep each key once). Where no filter's path holds an array (an array marker row, one index probe
    // each, evaluated once), the set's rows are counted as they come: the DISTINCT's sort of every match was about a
    // third of the status guards' 1.4 ms (2,500 matches). The DISTINCT count is kept for the other case. Both engines
    // run only the branch the CASE takes (PostgreSQL: InitPlans, evaluated when first read); as one aggregate with
    // FILTERs instead, SQLite paid a per-row cost of the two aggregates (2,500 matches: 150-280 against 460-540 µs).
    const once = this.oneRowPerAsset(q.filterPaths ?? []);
    const countOf = (name: string) =>
      sql<number>`CASE WHEN ${once} THEN (SELECT count(*) FROM ${sql.raw(name)} AS q__k WHERE ${keep})
        ELSE (SELECT count(*) FROM (SELECT DISTINCT q__k.seq FROM ${sql.raw(name)} AS q__k WHERE ${keep}) AS q__m) END`;
    // The set written once, named (NOT MATERIALIZED: each branch reads it as its own subquery): its SQL is most of the
    // statement, and compiling it twice cost the service more than the count saved on the owner shape.
    const count = q.set
      ? sql<number>`WITH ${sql.id(ASSET_UNIVERSE)} AS ${universe}, q__s AS NOT MATERIALIZED (${q.set})
        SELECT ${countOf('q__s')} AS n`
      : sql<number>`WITH ${sql.id(ASSET_UNIVERSE)} AS ${universe} SELECT count(*) FROM (${matches}) AS q__m`;
    // Counted on their own (above), the matches are not materialized first (PostgreSQL: 22 -> 18 ms for 25,000 matches).
    const countMatches = async () => Number((await rowsOf(db, sql<{ n: number | string }>`${count}`))[0]?.n ?? 0);
    if (limit === 0) return { total: await countMatches(), ids: [] };
    let known: number | undefined;
    if (q.walk) {
      const walked = await this.walk(
        db,
        q.walk,
        {
          visible,
          universe,
          set: q.set,
          setKeys: q.set && sql`WITH ${sql.id(ASSET_UNIVERSE)} AS ${universe} SELECT q__k.seq FROM (${q.set}) AS q__k`,
          count,
          countOf,
        },
        start,
        limit,
        attach,
        requestKey,
      );
      if (walked.page) return answer(walked.total!, walked.page);
      known = walked.total;
    }
    // Built only here: a walk that answers the page never reads it.
    const withMatches = (db as Kysely<any>)
      .with(ASSET_UNIVERSE, () => universe as any)
      .with(
        (cte) => cte('q__m').materialized(),
        () => sql`(${matches})` as any,
      );
    let from = q.needsItemRow
      ? withMatches.selectFrom('q__m as m' as any).innerJoin('dm_assets as a', 'a.seq', 'm.seq' as any)
      : withMatches.selectFrom('q__m as a' as any);
    for (const join of q.joins) from = this.dialect.leftJoinRow(from, join.table, join.alias, join.on);
    // The count, unless the walk's guards answered it already.
    let ordered = from.select([
      'a.seq' as any,
      known === undefined ? sql<number>`(SELECT count(*) FROM q__m)`.as('total') : sql<number>`0`.as('total'),
    ]);
    for (const o of q.orderBy) ordered = ordered.orderBy(o);
    const page = await this.pageRows(
      db,
      ordered
        .orderBy('a.seq' as any)
        .limit(limit)
        .offset(start),
      known === undefined,
      attach,
    );
    if (known !== undefined) return answer(known, page);
    if (requestKey !== undefined)
      this.firsts.set(requestKey, { statement: page.statement, walkKey: q.walk?.key, start, limit });
    const total = page.ids.length === 0 ? (start > 0 ? await countMatches() : 0) : page.total!;
    if (q.walk) this.counted(q.walk.key, total);
    return page.ids.length === 0 ? { total, ids: [] } : answer(total, page);
  }
}
