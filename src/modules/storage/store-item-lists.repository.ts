// Reading pages of a store's items: the items the caller may read that a compiled query selects, in its order, with
// their total, and the page's documents as JSON text.
import { sql, type CompiledQuery, type Kysely, type QueryResult, type RawBuilder } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { preparedOnServer, rowsAsArrays } from '../../platform/db/prepared-query.js';
import { readOffThread } from '../../platform/db/read-off-thread.js';
import { forTenant } from '../../platform/db/tenant-scope.js';
import { VALUE_FORM, VALUE_KIND } from '../../platform/query/index.js';
import type { StorageTables } from './storage.tables.js';
import { FEW_READABLE, readableKeys, readGrantsUpToFew, type CompiledItemQuery, type StoreScope } from './store-scope.js';
import { ExpiringMap } from '../../platform/cache/expiring-map.js';
import { SingleFlight } from '../../platform/async/single-flight.js';
import { itemsInCreationOrder, plainColumn, storeChanges, valueRowsInOrder, walkStatement, type PageRow, type WalkedRows } from './store-walk-sql.js';

type Db = Kysely<StorageTables>;

/** An item row with its document as JSON text, for the read that answers it without parsing it. */
export interface ItemText {
  docText: string;
  createdOn: number;
  createdBy: string;
  updatedOn: number;
  updatedBy: string;
}

/** The only form of the values at a path (storage_value_keys.forms) whose index rows can be walked, and their kind. */
const WALKABLE = new Map<number, number>([
  [VALUE_FORM.number, VALUE_KIND.number],
  [VALUE_FORM.string, VALUE_KIND.string],
  [VALUE_FORM.boolean, VALUE_KIND.boolean],
]);
/** Statements kept per compiled query (StoreItemLists.run). */
const STATEMENTS_PER_QUERY = 8;
/** Index rows a walk reads at most for a page ending at `wanted` (then the general plan answers). */
const walkRows = (wanted: number) => 20 * wanted + 2000;
/** How long a list whose walk gave up (too few matches in its rows) takes the general plan before walking again. */
const WALK_RETRY_MS = 60_000;


export interface ListPage {
  total: number;
  records: ItemText[];
}

/** How long readsFew's answer is kept, and for how many callers at most. */
const FEW_KEPT_MS = 10_000;
const FEW_KNOWN_MAX = 10_000;

/** SQL of list reads: every statement names its tenant and store; who may read is an indexed lookup inside it. */
export class StoreItemLists {
  /** Statements built for a compiled query, by key (run). */
  private readonly statements = new WeakMap<CompiledItemQuery, Map<string, CompiledQuery<unknown>>>();
  /**
   * Until when (epoch ms) a compiled query's walk is not tried again: it gave up, having read its rows without filling
   * the page (matches that come late in the walk's order: say the open items are the newest). Each try costs up to
   * walkRows rows on top of the general plan, so a list that keeps asking pays for it once a minute, not every time.
   */
  private readonly walkGaveUp = new WeakMap<CompiledItemQuery, number>();
  /**
   * A walked list's guards as last counted, with the store's change count they were counted at (storage-008): a
   * list asked again while the store is unchanged reads its page only, not the count of its matches again (PostgreSQL,
   * 10,000 items, half reader, filter + sort, 50 connections: the guards were about half the server's time a list).
   */
  private readonly counted = new WeakMap<CompiledItemQuery, Counted>();

  /** readsFew's answers by tenant, store and grantees, each kept FEW_KEPT_MS, and those being counted. */
  private readonly fewKnown = new ExpiringMap<string, boolean>(FEW_KNOWN_MAX);
  private readonly fewCounting = new SingleFlight<string, boolean>();

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Whether the scope's grantees may read fewer than FEW_READABLE of the store's items (StoreScope.fewReadable): up to
   * that many of their access rows read, and the answer kept a few seconds. It picks a plan, never an answer, so a
   * caller whose share grew meanwhile gets the same items a little more slowly until it is asked again.
   */
  async readsFew(scope: StoreScope): Promise<boolean> {
    const key = JSON.stringify([scope.tenantId, scope.storeId, scope.grantees]);
    const known = this.fewKnown.get(key);
    if (known !== undefined) return known;
    return this.fewCounting.run(key, async () => {
      const { rows } = await readGrantsUpToFew(scope).execute(this.db);
      const few = Number(rows[0].n) < FEW_READABLE;
      this.fewKnown.set(key, few, Date.now() + FEW_KEPT_MS);
      return few;
    });
  }

  /**
   * One page of the items the grantees may read, with the total of all of them. `compiled.set` selects the keys of
   * the matching items the caller may read, each once (storage.query.ts; it may refer to the readable keys as `q__r`);
   * the order refers to the item aliased `i`; `i.seq` (creation order) breaks ties so pages are stable.
   */
  async list(scope: StoreScope, compiled: CompiledItemQuery, start: number, limit: number): Promise<ListPage> {
    const page = await this.listOnce(scope, compiled, start, limit);
    if (page !== NOT_PLAIN) return page;
    if (!compiled.general) throw new Error('storage: a list compiled for plain values has no general compile');
    return this.list(scope, compiled.general(), start, limit);
  }

  /** The list, or NOT_PLAIN where a statement found that the compile's plain values were not (CompiledItemQuery.plain). */
  private async listOnce(scope: StoreScope, compiled: CompiledItemQuery, start: number, limit: number): Promise<ListPage | typeof NOT_PLAIN> {
    const { tenantId, storeId } = scope;
    if (!compiled.set && compiled.orderBy.length === 0) return this.listInCreationOrder(scope, start, limit);
    // The matches as keys: the query's set (index ranges of the caller's reader sets, or one pass over the store where
    // the index cannot answer). `q__r` (every readable key) is the universe a NOT refers to, computed only then. With a
    // walk, the total (guards) and the page are two statements, so a write between them can make them disagree by it.
    const universe = () => sql`(${readableKeys(scope)})`;
    let known: number | undefined;
    if (compiled.walk && limit > 0) {
      const walked = await this.walk(scope, compiled, compiled.walk, universe, start, limit);
      if (walked === NOT_PLAIN) return NOT_PLAIN;
      if (walked.records) return { total: walked.total, records: walked.records };
      known = walked.total;
    }
    // The matches computed once (MATERIALIZED) for the count and the page. Reading the set twice instead (count, then
    // the first keys) saved 2 ms of 5 on SQLite at 25,000 matches, but doubled PostgreSQL's time where its plans for the
    // set are poor (right after a bulk load: 67 -> 232 ms for a range filter at 100,000 items), so it was left.
    const withMatches = () => {
      const matches = compiled.set ? sql`SELECT q__k.seq FROM (${compiled.set}) AS q__k` : sql`SELECT seq FROM q__r`;
      return this.db.with('q__r', universe as any).with((cte) => cte('q__m').materialized(), () => sql`(${matches})` as any);
    };
    const countMatches = async () => {
      const counted = await this.run(compiled, 'count', () =>
        withMatches()
          .selectFrom('q__m' as any)
          .select([sql<number>`count(*)`.as('n'), plainColumn(compiled).as('plain')])
          .compile(),
      );
      const row = counted.rows[0] as { n?: number | string; plain: number | string };
      return Number(row.plain) === 1 ? Number(row.n ?? 0) : NOT_PLAIN;
    };
    const counted = (total: number | typeof NOT_PLAIN) => (total === NOT_PLAIN ? NOT_PLAIN : { total, records: [] });
    if (limit === 0) return counted(await countMatches());
    // Keys, their count and the sort keys only; the documents of the page are read afterwards. The item's row is
    // joined only when the sort needs a column of it.
    const pageStatement = () => {
      let page = compiled.needsItemRow
        ? withMatches().selectFrom('q__m as m' as any).innerJoin('storage_items as i', 'i.seq', 'm.seq' as any)
        : withMatches().selectFrom('q__m as i' as any);
      for (const join of compiled.joins) page = this.dialect.leftJoinRow(page, join.table, join.alias, join.on);
      const total = known === undefined ? sql<number>`(SELECT count(*) FROM q__m)` : sql<number>`0`;
      let ordered = page.select(['i.seq' as any, total.as('total'), plainColumn(compiled).as('plain')]);
      for (const o of compiled.orderBy) ordered = ordered.orderBy(o);
      return ordered.orderBy('i.seq' as any).limit(limit).offset(start).compile() as CompiledQuery<{ seq: number | string; total: number | string; plain: number | string }>;
    };
    const { rows } = await this.run(compiled, `page ${known === undefined} ${start} ${limit}`, pageStatement);
    if (rows.length === 0) {
      // No row carries the check of plain values: the count does (asked for anyway beyond the first page).
      if (!compiled.plain && (known !== undefined || start === 0)) return { total: known ?? 0, records: [] };
      const total = await countMatches();
      return total === NOT_PLAIN ? NOT_PLAIN : { total: known ?? total, records: [] };
    }
    if (Number(rows[0].plain) !== 1) return NOT_PLAIN;
    const seqs = rows.map((r) => Number(r.seq));
    if (known !== undefined) return { total: known, records: await this.fetchPage(tenantId, storeId, seqs) };
    return { total: Number(rows[0].total), records: await this.fetchPage(tenantId, storeId, seqs) };
  }

  /**
   * The page by walking, in the list's order, either the sort path's index rows or (no sort) the store's items in
   * creation order, readable ones only (their reader set), and keeping the matching items (each tested by probes of
   * its own rows): the cost follows the rows walked, not the matches. Only where it gives exactly the general plan's
   * order and the walk is expected to be short (at most walkRows rows). A sort walks only where every value the path
   * ever held in the store is one kind of scalar (storage_value_keys.forms: no arrays, objects, long strings or mixed
   * kinds, whose order differs), fewer rows than twice the matches; items without a value at the path sort last in
   * both plans, so when the walk finds fewer than the page needs, no page (the general plan answers). Creation order
   * walks where the page's share of the store's span of keys, times its matches' density, fits half the rows and the
   * matches (a filter on most of the store; a selective one, or a deep page, reads its matches instead). Every item
   * must be indexed. A walk that gave up is not tried again for a while (walkGaveUp). The total comes with the guards,
   * one round trip; the page's documents with the walk, another (PostgreSQL: 0.5 ms a round trip here, and the
   * documents' statement planned apart).
   */
  private async walk(
    scope: StoreScope,
    compiled: CompiledItemQuery,
    w: NonNullable<CompiledItemQuery['walk']>,
    universe: () => RawBuilder<unknown>,
    start: number,
    limit: number,
  ): Promise<{ total: number; records?: ItemText[] } | typeof NOT_PLAIN> {
    // Asked again: the page alone, with the store's change count; where the count is what it was, so is the total.
    const seen = this.counted.get(compiled);
    if (seen) {
      // Nothing matched: nothing to walk, and nothing matches still where the store has not changed since (a poll for
      // new matches: one index range read, PostgreSQL 10,000 items, 50 connections, a reader with no matches: 990 -> 9,044 lists/s).
      const answer =
        seen.total === 0
          ? (await this.storeUnchanged(scope, compiled, seen)) ? { total: 0, records: [] } : STALE
          : await this.walkCounted(scope, compiled, w, seen, start, limit, true);
      if (answer !== STALE) return answer;
      this.counted.delete(compiled);
    }
    const { tenantId, storeId } = scope;
    const count = () => (compiled.set ? sql`SELECT count(*) FROM (${compiled.set}) AS q__k` : sql`SELECT count(*) FROM q__r`);
    const ofStore = (alias: string) => sql`${sql.ref(`${alias}.tenant_id`)} = ${tenantId} AND ${sql.ref(`${alias}.store_id`)} = ${storeId}`;
    // The path's forms (a sort), or the span of the store's keys (creation order: max and min, one index entry each).
    const shape =
      w.path === undefined
        ? sql`(SELECT max(o.seq) FROM storage_items o WHERE ${ofStore('o')}) - (SELECT min(o.seq) FROM storage_items o WHERE ${ofStore('o')})`
        : sql`(SELECT k.forms FROM storage_value_keys k WHERE ${ofStore('k')} AND k.path = ${w.path})`;
    // Each guard reads one index entry (PostgreSQL: in the index's order, see AssetLists.walk).
    const guards = await this.run(compiled, 'guards', () => sql<{ shape: number | string | null; unindexed: number | null; n: number | string; plain: number | string; changes: number | string | null }>`WITH q__r AS ${universe()}
      SELECT ${shape} AS shape,
        (SELECT 1 FROM storage_items u WHERE ${ofStore('u')} AND u.idx <> 1 ORDER BY u.tenant_id, u.store_id, u.seq LIMIT 1) AS unindexed,
        (${count()}) AS n, ${plainColumn(compiled)} AS plain, ${storeChanges(scope)} AS changes`.compile(this.db));
    const g = guards.rows[0];
    if (Number(g.plain) !== 1) return NOT_PLAIN;
    const counted: Counted = { shape: g.shape, unindexed: g.unindexed, total: Number(g.n), changes: String(g.changes) };
    this.counted.set(compiled, counted);
    const answer = await this.walkCounted(scope, compiled, w, counted, start, limit, false);
    return answer === STALE ? { total: counted.total } : answer;
  }

  /**
   * The page by the walk, with the guards as counted (`c`). With `check`, the guards were counted by an earlier list:
   * the answer stands only where the walk ran and read the store's change count as `c` has it (in its own snapshot,
   * so the store's items are as they were when counted); else STALE, and the list counts again.
   */
  private async walkCounted(
    scope: StoreScope,
    compiled: CompiledItemQuery,
    w: NonNullable<CompiledItemQuery['walk']>,
    c: Counted,
    start: number,
    limit: number,
    check: boolean,
  ): Promise<{ total: number; records?: ItemText[] } | typeof NOT_PLAIN | typeof STALE> {
    const { total } = c;
    const noWalk = check ? STALE : { total };
    const rows = walkRows(start + limit);
    if (c.unindexed !== null || total === 0 || (this.walkGaveUp.get(compiled) ?? 0) > Date.now()) return noWalk;
    let walked: WalkedRows;
    if (w.path === undefined) {
      // The rows the walk is expected to read: at most half its bound, and no more than the matches the general plan
      // would sort instead (deep pages: at 100,000 items and 25,000 matches, a page at 10,000 walked in 18 ms, about
      // twice the general plan; at 2,000 in 7 ms, less).
      const expected = ((start + limit) * (Number(c.shape) + 1)) / total;
      if (expected > rows / 2 || expected > Math.max(total, walkRows(0))) return noWalk;
      walked = { key: 'items', rows: itemsInCreationOrder(this.dialect, scope, rows), columns: ['seq'], order: () => undefined };
    } else {
      const kind = WALKABLE.get(Number(c.shape ?? 0));
      if (kind === undefined || rows > 2 * total) return noWalk;
      walked = { key: `${kind}`, ...valueRowsInOrder(this.dialect, scope, w.path, kind, w.direction, rows) };
    }
    const page = await this.run(compiled, `walk ${walked.key} ${start} ${limit}`, () =>
      rowsAsArrays<[...PageRow, plain: number | string, changes: number | string | null]>(
        walkStatement(this.dialect, compiled, scope, w.where, walked, start, limit).compile(this.db),
      ),
    );
    if (check && (page.rows.length === 0 || String(page.rows[0][6]) !== c.changes)) return STALE;
    if (page.rows.length > 0 && Number(page.rows[0][5]) !== 1) return NOT_PLAIN;
    if (page.rows.length < limit && start + page.rows.length < total) {
      this.walkGaveUp.set(compiled, Date.now() + WALK_RETRY_MS);
      return noWalk;
    }
    return { total, records: page.rows.map(itemText) };
  }

  /** Whether the store's change count is what it was when the list was counted (`c`). */
  private async storeUnchanged(scope: StoreScope, compiled: CompiledItemQuery, c: Counted): Promise<boolean> {
    const { rows } = await this.run(compiled, 'changes', () => sql<{ changes: number | string | null }>`SELECT ${storeChanges(scope)} AS changes`.compile(this.db));
    return String(rows[0]?.changes) === c.changes;
  }

  /**
   * Runs the statement `build` makes for the compiled query, built and compiled to SQL text once per `key` (what the
   * statement depends on besides the compiled query, whose scope and parameters it already holds): the compiler
   * remembers the compiled queries of repeated lists, and building a list's statements (Kysely's trees, their SQL text)
   * took as long as compiling the query had. Kept with the compiled query, a few per query (pages asked for apart).
   */
  private run<R>(compiled: CompiledItemQuery, key: string, build: () => CompiledQuery<R>): Promise<QueryResult<R>> {
    let built = this.statements.get(compiled);
    if (!built) this.statements.set(compiled, (built = new Map()));
    let query = built.get(key) as CompiledQuery<R> | undefined;
    if (!query) {
      query = preparedOnServer(build());
      if (built.size >= STATEMENTS_PER_QUERY) built.delete(built.keys().next().value!);
      built.set(key, query);
    }
    return readOffThread(this.db, query);
  }

  /**
   * Without query, filter or sort, the page and the total come from the access index alone: every access row
   * belongs to an item of its tenant and store (written and deleted in the item's transaction), so the items
   * table is touched only for the page's documents. At 1,000,000 items this spares reading the 20,000 rows a
   * reader of 1 role in 50 may see.
   */
  private async listInCreationOrder(scope: StoreScope, start: number, limit: number): Promise<ListPage> {
    const readable = readableKeys(scope);
    const countAll = () =>
      readOffThread(this.db, sql<{ n: number | string }>`SELECT count(*) AS n FROM (${readable}) r`.compile(this.db)).then((r) => Number(r.rows[0]?.n ?? 0));
    if (limit === 0) return { total: await countAll(), records: [] };
    // One statement for the page and its total, as in the general path: both see the same snapshot.
    const { rows } = await readOffThread(
      this.db,
      sql<{ seq: number | string; total: number | string }>`SELECT r.seq, count(*) over () AS total FROM (${readable}) r ORDER BY r.seq LIMIT ${limit} OFFSET ${start}`.compile(this.db),
    );
    if (rows.length === 0) return { total: start > 0 ? await countAll() : 0, records: [] };
    return { total: Number(rows[0].total), records: await this.fetchPage(scope.tenantId, scope.storeId, rows.map((r) => Number(r.seq))) };
  }

  /** The documents of a page as JSON text (spliced into the answer, never parsed), in the page's order. */
  private async fetchPage(tenantId: string, storeId: string, seqs: number[]): Promise<ItemText[]> {
    if (seqs.length === 0) return [];
    const statement = forTenant(this.db, tenantId)
      .selectFrom('storage_items as i')
      .select([this.dialect.jsonText('i.doc').as('doc_text'), 'i.created_on', 'i.created_by', 'i.updated_on', 'i.updated_by', 'i.seq'])
      .where('i.store_id', '=', storeId)
      .where('i.seq', 'in', seqs)
      .compile();
    const docs = await readOffThread(this.db, rowsAsArrays<[...PageRow, number | string]>(statement));
    const bySeq = new Map(docs.rows.map((row) => [Number(row[5]), row]));
    // An item deleted between the two statements is left out (the page is short by exactly that item).
    return seqs.flatMap((seq) => {
      const row = bySeq.get(seq);
      return row ? [itemText(row)] : [];
    });
  }
}

/** A list's answer where a statement found that the values its compile assumed plain are not. */
const NOT_PLAIN = Symbol('not plain');
/** A walk's answer where the guards it was given no longer hold (StoreItemLists.walkCounted). */
const STALE = Symbol('stale');

/** A walked list's guards (StoreItemLists.walk) and the store's change count in the same snapshot. */
interface Counted {
  shape: number | string | null;
  unindexed: number | null;
  total: number;
  changes: string;
}

const itemText = (row: Readonly<PageRow> | Readonly<[...PageRow, ...unknown[]]>): ItemText => ({
  docText: row[0],
  createdOn: Number(row[1]),
  createdBy: row[2],
  updatedOn: Number(row[3]),
  updatedBy: row[4],
});
