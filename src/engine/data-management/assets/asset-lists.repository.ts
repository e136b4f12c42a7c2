import { sql, type CompiledQuery, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import { preparedOnServer } from '../../../platform/db/prepared-query.js';
import { VALUE_KIND, walkedKind, type SortJoin } from '../../../platform/query/index.js';
import type { DmTables } from '../dm.tables.js';

type Db = Kysely<DmTables>;

/** The keys of the universe of a query: the assets of the scope the caller may see (CTE). */
export const ASSET_UNIVERSE = 'q__r';

export interface AssetQuery {
  set?: RawBuilder<unknown>;
  orderBy: RawBuilder<unknown>[];
  joins: SortJoin[];
  needsItemRow: boolean;
  /**
   * For a query sorted by one indexed value: the value's path, the sort and the filters as a condition on one asset
   * (aliased `a`), so that a page can be read by walking the path's index rows in order (AssetLists.walk).
   */
  walk?: { path: string; direction: 'ASC' | 'DESC'; stringKey: string; where?: RawBuilder<SqlBool> };
}

/**
 * The rows of a statement of a query, run as a named prepared statement: its text follows the query's shape (filters,
 * sorters, hidden templates), its values are parameters, so PostgreSQL parses it once per connection and, where its
 * generic plan serves, plans it once (planning was 1.5-2 ms of each query); the connection's statement cache bounds
 * how many shapes it keeps (postgres-statements.ts). SQLite keeps statements by text anyway.
 */
async function rowsOf<R>(db: Db, statement: RawBuilder<R> | CompiledQuery<R>): Promise<R[]> {
  const compiled = 'isRawBuilder' in statement ? statement.compile(db) : statement;
  return (await db.executeQuery(preparedOnServer(compiled))).rows;
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

/** SQL of asset queries: one page of the assets a compiled query selects, and how many it selects. */
export class AssetLists {
  constructor(
    private readonly scope: string,
    private readonly dialect: Dialect,
  ) {}

  /**
   * The page by walking the sort path's index rows in order and keeping the matching assets (each tested by index
   * probes), which stops after the page: the cost follows the rows walked, not the matches. Only where it gives exactly
   * the general plan's order: every row at the path is an exact scalar of one kind (no arrays, objects, long strings,
   * mixed kinds: markers make that two index probes), every asset is indexed, and the walk is expected to be short
   * (many matches). Assets without a value at the path sort last in both plans: when the walk finds fewer than the
   * page needs, undefined (the general plan answers).
   */
  private async walk(
    db: Db,
    w: NonNullable<AssetQuery['walk']>,
    visible: RawBuilder<SqlBool>,
    count: RawBuilder<number>,
    start: number,
    limit: number,
  ): Promise<{ total?: number; ids?: number[] }> {
    // The guards and the count in one round trip. The order of the index rows is the sort's order only for one kind of
    // exact scalar at the path (its first and last kinds in the index are the same). Each guard reads one index entry
    // in an index's order: as `WHERE ... LIMIT 1` PostgreSQL's planner, expecting many rows, scanned the whole table when
    // none matched (300 ms at 100,000 assets).
    const guards = await rowsOf(
      db,
      sql<{
        first: number | null;
        last: number | null;
        unindexed: number | null;
        max: number | null;
        n: number | string;
      }>`SELECT
      (SELECT t FROM dm_asset_values WHERE scope = ${this.scope} AND path = ${w.path} ORDER BY scope, path, t LIMIT 1) AS first,
      (SELECT t FROM dm_asset_values WHERE scope = ${this.scope} AND path = ${w.path} ORDER BY scope DESC, path DESC, t DESC LIMIT 1) AS last,
      (SELECT 1 FROM dm_assets WHERE scope = ${this.scope} AND idx <> 1 ORDER BY scope, seq LIMIT 1) AS unindexed,
      (SELECT max(seq) FROM dm_assets) AS max, (${count}) AS n`,
    );
    const g = guards[0];
    const total = Number(g.n);
    const kind = g.first === null ? undefined : Number(g.first);
    if (kind === undefined || kind > VALUE_KIND.boolean || Number(g.last) !== kind || g.unindexed !== null)
      return { total };
    // Rows walked ~ wanted * assets / matches, against one probe per match in the general plan.
    const wanted = start + limit;
    if (total === 0 || wanted * Number(g.max ?? 0) > total * total) return { total };
    // The rows of the path's kind in the sort's order (walkedKind: in sort modes other than '' strings walk their key's
    // index, partial on the string kind, named as a literal so that both planners match it). No arrays at the path (no
    // marker rows, checked above): every row is elem 0, and the walk reads the index alone.
    const walked = walkedKind(kind, w.stringKey, w.direction);
    // The asset `a` the filters test is its index row: its key is the row's, and the columns of the asset are read
    // only where a test needs them (one probe each: the document for values beyond the index, the template for hidden
    // ones, the dates), not for each row walked. Every asset is indexed (checked above): idx is 1.
    const column = (name: string) => sql`(SELECT d.${sql.ref(name)} FROM dm_assets d WHERE d.seq = s.item_seq)`;
    const rows = await rowsOf(
      db,
      sql<{ seq: number }>`SELECT a.seq FROM (SELECT s.item_seq AS seq, s.num, s.str, s.ci, s.usr, s.uci, 1 AS idx,
        ${column('doc')} AS doc, ${column('template_id')} AS template_id, ${column('active_on')} AS active_on, ${column('created_on')} AS created_on, ${column('created_by')} AS created_by
        FROM dm_asset_values s WHERE s.scope = ${this.scope} AND s.path = ${w.path} AND ${walked.rows('s')}) a
      WHERE ${visible} AND ${w.where ?? sql<SqlBool>`1 = 1`}
      ORDER BY ${walked.order('a')}, a.seq ASC LIMIT ${pageBound(limit)} OFFSET ${pageBound(start)}`,
    );
    if (rows.length < limit && start + rows.length < total) return { total };
    return { total, ids: rows.map((r) => Number(r.seq)) };
  }

  /**
   * One page of the assets a compiled query selects, and how many it selects in all. `q.set` selects keys within the
   * universe `q__r` (the scope's assets but those of `hiddenTemplates`); the order refers to the asset aliased `a`,
   * its id breaking ties.
   */
  async query(
    db: Db,
    q: AssetQuery,
    hiddenTemplates: number[],
    start: number,
    limit: number,
  ): Promise<{ total: number; ids: number[] }> {
    const visible =
      hiddenTemplates.length > 0
        ? sql<SqlBool>`a.template_id NOT IN (${sql.join(hiddenTemplates)})`
        : sql<SqlBool>`1 = 1`;
    if (!q.set && q.orderBy.length === 0) {
      const count = await rowsOf(
        db,
        sql<{ n: number | string }>`SELECT count(*) AS n FROM dm_assets a WHERE a.scope = ${this.scope} AND ${visible}`,
      );
      const total = Number(count[0].n);
      if (limit === 0) return { total, ids: [] };
      const rows = await rowsOf(
        db,
        sql<{
          seq: number;
        }>`SELECT a.seq FROM dm_assets a WHERE a.scope = ${this.scope} AND ${visible} ORDER BY a.seq LIMIT ${limit} OFFSET ${start}`,
      );
      return { total, ids: rows.map((r) => Number(r.seq)) };
    }
    const keep =
      hiddenTemplates.length > 0
        ? sql<SqlBool>`NOT EXISTS (SELECT 1 FROM dm_assets x WHERE x.seq = q__k.seq AND x.template_id IN (${sql.join(hiddenTemplates)}))`
        : sql<SqlBool>`1 = 1`;
    const matches = q.set
      ? sql`SELECT DISTINCT q__k.seq FROM (${q.set}) AS q__k WHERE ${keep}`
      : sql`SELECT seq FROM q__r`;
    const universe = sql`(SELECT a.seq FROM dm_assets a WHERE a.scope = ${this.scope} AND ${visible})`;
    const withMatches = (db as Kysely<any>)
      .with(ASSET_UNIVERSE, () => universe as any)
      .with(
        (cte) => cte('q__m').materialized(),
        () => sql`(${matches})` as any,
      );
    // Counted on their own, the matches are not materialized first (PostgreSQL: 22 -> 18 ms for 25,000 matches).
    const count = sql<number>`WITH ${sql.id(ASSET_UNIVERSE)} AS ${universe} SELECT count(*) AS n FROM (${matches}) AS q__m`;
    const countMatches = async () => Number((await rowsOf(db, sql<{ n: number | string }>`${count}`))[0]?.n ?? 0);
    if (limit === 0) return { total: await countMatches(), ids: [] };
    let known: number | undefined;
    if (q.walk) {
      const page = await this.walk(db, q.walk, visible, count, start, limit);
      if (page.ids) return { total: page.total!, ids: page.ids };
      known = page.total;
    }
    let page = q.needsItemRow
      ? withMatches.selectFrom('q__m as m' as any).innerJoin('dm_assets as a', 'a.seq', 'm.seq' as any)
      : withMatches.selectFrom('q__m as a' as any);
    for (const join of q.joins) page = this.dialect.leftJoinRow(page, join.table, join.alias, join.on);
    // The count, unless the walk's guards answered it already.
    let ordered = page.select([
      'a.seq' as any,
      known === undefined ? sql<number>`(SELECT count(*) FROM q__m)`.as('total') : sql<number>`0`.as('total'),
    ]);
    for (const o of q.orderBy) ordered = ordered.orderBy(o);
    const rows = await rowsOf(
      db,
      ordered
        .orderBy('a.seq' as any)
        .limit(limit)
        .offset(start)
        .compile(),
    );
    if (known !== undefined) return { total: known, ids: rows.map((r: any) => Number(r.seq)) };
    if (rows.length === 0) return { total: start > 0 ? await countMatches() : 0, ids: [] };
    return { total: Number((rows[0] as any).total), ids: rows.map((r: any) => Number(r.seq)) };
  }
}
