import { sql, type CompiledQuery, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import { preparedOnServer } from '../../../platform/db/prepared-query.js';
import { VALUE_KIND, walkedKind, type SortJoin } from '../../../platform/query/index.js';
import type { DmTables } from '../dm.tables.js';
import { Recent, type WalkShape } from './walk-shapes.js';

type Db = Kysely<DmTables>;

/**
 * What a page brings besides its ids, in the same statement: the assets' ACTIVE answers (`docs`), and also the ids of
 * their children (`docsAndChildren`).
 */
export type PageDocs = 'docs' | 'docsAndChildren';

/** One page of a query: ids in order, the total, and the documents (and children) where asked for. */
export interface AssetPage {
  total: number;
  ids: number[];
  /** The answers as JSON text by id (with `id`), where the page brought them. */
  docs?: Map<number, string>;
  /** The children's ids of each asset of the page, in id order, where the page brought them. */
  children?: Map<number, number[]>;
}

/** The stored answer keeps no `id` (it is `seq`, unknown before the insert): spliced in front when read. */
export const withId = (seq: number, stored: string): string => {
  const inner = stored.slice(stored.indexOf('{') + 1).trimStart();
  return inner.startsWith('}') ? `{"id":${seq}}` : `{"id":${seq},${inner}`;
};

interface PageRows {
  ids: number[];
  /** The page statement's `total` column (of its first row), where it has one and rows came. */
  total?: number;
  /** The walk's guards, where the page statement read them (AssetLists.walk). */
  guards?: Guards;
  docs?: Map<number, string>;
  children?: Map<number, number[]>;
}

/** A page statement compiled (AssetLists.pageStatement), and how its rows read. */
interface PageStatement {
  compiled: CompiledQuery<unknown>;
  /** Rows of kinds (the page, documents, children, guards), or the page's rows alone. */
  union: boolean;
  /** With the total of the matches (the general page counting them). */
  counted: boolean;
  attach?: PageDocs;
  /** With a walk's guards (AssetLists.walk). */
  guarded: boolean;
}

/** A request's first statement (AssetLists.kept): a walk with its guards (`kind`), or the general page counting. */
interface KeptPage {
  statement: PageStatement;
  /** The shape's key (WalkShapes), for a walked query. */
  walkKey?: string;
  kind?: number;
  start: number;
  limit: number;
}

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
  walk?: {
    path: string;
    direction: 'ASC' | 'DESC';
    stringKey: string;
    where?: RawBuilder<SqlBool>;
    /** The query's shape as far as its walk's guards go (its filters, path and sort key, who may read): WalkShapes. */
    key: string;
  };
  /** The paths of the indexed values the filters test (the set's value rows are read at these paths only). */
  filterPaths?: string[];
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
interface Guards {
  n: number;
  max: number;
  first: number | null;
  last: number | null;
  unindexed: boolean;
  /** Whether the statement that read them walked too (its guards held and the walk paid: guardedCtes' `go`). */
  went: boolean;
}

/** The kind of exact scalar every index row at the path holds, where a walk of them is in the sort's order. */
function walkableKind(g: Guards): number | undefined {
  if (g.first === null || g.first > VALUE_KIND.boolean || g.last !== g.first || g.unindexed) return undefined;
  return g.first;
}

/** Whether a walk is expected to be short: rows walked ~ wanted * assets / matches, against one probe per match. */
const worthWalking = (total: number, max: number, wanted: number): boolean =>
  total > 0 && wanted * max <= total * total;

/** Whether a walk tests its rows against the set of the matches (HASHED_SET). */
const hashedSet = (total: number, max: number, wanted: number): boolean => total * total < HASHED_SET * wanted * max;

/** The parts of a query that its walk's statements name (AssetLists.query). */
interface WalkParts {
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

/** SQL of asset queries: one page of the assets a compiled query selects, and how many it selects. */
export class AssetLists {
  /** The guesses of the walk's guards by shape (walk). */
  private readonly shapes = new Recent<WalkShape>(1_000);
  /** The first statement of recent requests, compiled, by request (kept). */
  private readonly firsts = new Recent<KeptPage>(300);

  constructor(
    private readonly scope: string,
    private readonly dialect: Dialect,
  ) {}

  /**
   * A page statement (`seq`, and `total` where `counted`), in its order; with `attach`, the assets' documents (and
   * their children's ids) come in the same statement: the page is kept (a materialized CTE, numbered in its order) and
   * the documents are read for its ids, one round trip and one statement less a query than reading them after it.
   */
  private pageStatement(
    db: Db,
    page: RawBuilder<unknown> | SelectQueryBuilder<any, any, any>,
    counted: boolean,
    attach: PageDocs | undefined,
    head?: { ctes: RawBuilder<unknown>; rows: RawBuilder<unknown> },
  ): PageStatement {
    const raw = 'isRawBuilder' in page;
    if (!attach && !head)
      return { compiled: raw ? page.compile(db) : page.compile(), union: false, counted, guarded: false };
    const ofPage = (column: string) => this.dialect.inSubquery(sql.ref(column), sql`SELECT q__p.seq FROM q__p`);
    const docs =
      attach !== undefined
        ? sql`UNION ALL SELECT 1, d.seq, NULL, ${this.dialect.jsonText('d.doc')} FROM dm_assets d WHERE d.scope = ${this.scope} AND ${ofPage('d.seq')}`
        : sql``;
    const children =
      attach === 'docsAndChildren'
        ? sql`UNION ALL SELECT 2, c.seq, c.parent_id, NULL FROM dm_assets c WHERE c.scope = ${this.scope} AND ${ofPage('c.parent_id')}`
        : sql``;
    // kind 0: the page's rows (num: the place in the page, total), 1: a document, 2: a child (num: its parent); with
    // `head`, the rows it adds (3 and 4: a walk's guards, AssetLists.walk).
    const compiled =
      sql`WITH ${head ? sql`${head.ctes}, ` : sql``}q__p AS MATERIALIZED (SELECT x.seq, ${counted ? sql`x.total` : sql`0`} AS total, row_number() OVER () AS n FROM ${raw ? sql`(${page})` : page} AS x)
      SELECT 0 AS kind, q__p.seq, q__p.n AS num, CAST(q__p.total AS text) AS text FROM q__p
      ${docs}
      ${children}
      ${head ? sql`UNION ALL ${head.rows}` : sql``}`.compile(db);
    return { compiled, union: true, counted, attach, guarded: head !== undefined };
  }

  /** The rows of a page statement (pageStatement), run; with the statement, to be kept (kept). */
  private async pageRows(
    db: Db,
    page: RawBuilder<unknown> | SelectQueryBuilder<any, any, any>,
    counted: boolean,
    attach: PageDocs | undefined,
    head?: { ctes: RawBuilder<unknown>; rows: RawBuilder<unknown> },
  ): Promise<PageRows & { statement: PageStatement }> {
    const statement = this.pageStatement(db, page, counted, attach, head);
    return { ...(await this.readPage(db, statement)), statement };
  }

  /** Runs a page statement and reads its rows. */
  private async readPage(db: Db, st: PageStatement): Promise<PageRows> {
    const { counted, attach } = st;
    if (!st.union) {
      const rows = (await rowsOf(db, st.compiled)) as Array<{ seq: number | string; total?: number | string }>;
      return {
        ids: rows.map((r) => Number(r.seq)),
        total: counted && rows.length > 0 ? Number(rows[0].total) : undefined,
      };
    }
    const rows = (await rowsOf(db, st.compiled)) as Array<{
      kind: number | string;
      seq: number | string | null;
      num: number | string | null;
      text: string | null;
    }>;
    const order: Array<[number, number]> = [];
    const found = new Map<number, string>();
    const kids = new Map<number, number[]>();
    let total: number | undefined;
    const guards: Partial<Guards> = {};
    const orNull = (v: number | string | null) => (v === null ? null : Number(v));
    for (const r of rows) {
      const kind = Number(r.kind);
      const seq = Number(r.seq);
      if (kind === 0) {
        order.push([Number(r.num), seq]);
        total ??= Number(r.text);
      } else if (kind === 1) found.set(seq, withId(seq, r.text as string));
      else if (kind === 2) {
        const parent = Number(r.num);
        const list = kids.get(parent);
        if (list) list.push(seq);
        else kids.set(parent, [seq]);
      } else if (kind === 3) {
        guards.n = seq;
        guards.max = Number(r.num ?? 0);
        guards.went = Number(r.text) === 1;
      } else {
        guards.first = orNull(r.seq);
        guards.last = orNull(r.num);
        guards.unindexed = r.text !== null;
      }
    }
    order.sort((a, b) => a[0] - b[0]);
    for (const list of kids.values()) list.sort((a, b) => a - b);
    for (const seq of found.keys()) if (!kids.has(seq)) kids.set(seq, []);
    return {
      ids: order.map(([, seq]) => seq),
      total: counted ? total : undefined,
      docs: attach !== undefined ? found : undefined,
      children: attach === 'docsAndChildren' ? kids : undefined,
      guards: st.guarded ? (guards as Guards) : undefined,
    };
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
    const route = this.route(this.shapes.get(w.key), wanted);
    if (route.walk !== undefined) {
      const kind = route.walk;
      const rows = await this.pageRows(db, this.walkPage(w, kind, parts, start, limit, 'guarded'), false, attach, {
        ctes: this.guardedCtes(w, parts, kind, wanted),
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
      }>`SELECT ${this.guardColumns(w.path)}, (${parts.count}) AS n`,
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
      this.walkPage(w, kind, parts, start, limit, hashedSet(total, g.max, start + limit)),
      false,
      attach,
    );
    if (page.ids.length < limit && start + page.ids.length < total) return { total };
    return { total, page };
  }

  /**
   * Each guard reads one index entry in an index's order: as `WHERE ... LIMIT 1` PostgreSQL's planner, expecting many
   * rows, scanned the whole table when none matched (300 ms at 100,000 assets). The order of the index rows is the
   * sort's order only for one kind of exact scalar at the path (its first and last kinds in the index are the same).
   */
  private guardColumns(path: string): RawBuilder<unknown> {
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
  private guardedCtes(w: NonNullable<AssetQuery['walk']>, parts: WalkParts, kind: number, wanted: number) {
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
  private walkPage(
    w: NonNullable<AssetQuery['walk']>,
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

  /**
   * Which statement a walked query of a shape runs first (walk): with no guess, its guards; where the guess is a kind
   * and a walk that pays, the walk checking its guards itself; otherwise the general page, which counts (a shape
   * whose kind was unusable has its guards read again every REREAD_UNWALKABLE queries).
   */
  private route(shape: WalkShape | undefined, wanted: number): { walk?: number; general?: true } {
    if (!shape) return {};
    if (shape.kind !== undefined)
      return worthWalking(shape.total, shape.max, wanted) ? { walk: shape.kind } : { general: true };
    return shape.uses >= REREAD_UNWALKABLE ? {} : { general: true };
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
      const route = this.route(this.shapes.get(k.walkKey), k.start + k.limit);
      if (k.kind !== undefined ? route.walk !== k.kind : !route.general) return undefined;
    }
    const page = await this.readPage(db, k.statement);
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
