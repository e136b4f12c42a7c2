// Reading pages of a store's items, one way: the few-items hint, the list's plan (compiled, or remembered), its
// statements, and the general compile where the plan assumed plain values that the store does not hold. Every
// statement names its tenant and store; who may read is an indexed lookup inside it.
import { sql, type CompiledQuery, type RawBuilder } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import type { DataAccess } from '../../platform/db/data-access.js';
import type { ListQueryInput } from '../../platform/query/index.js';
import type { StorageTables } from './storage.tables.js';
import { compileStoreList } from './storage.query.js';
import { granteesOf, readableKeys } from './store-access.js';
import { FewReadableHint } from './store-few-readable.js';
import { CompiledLists, type CompiledList } from './store-list-cache.js';
import { NOT_PLAIN, READABLE, type ListPlan } from './store-list-plan.js';
import { ListReads, type ListPage } from './store-list-reads.js';
import { ListWalks } from './store-list-walk.js';
import type { StoreCaller, StoreScope } from './store-scope.js';
import { plainColumn } from './store-walk-sql.js';

export type { ItemText, ListPage } from './store-list-reads.js';

/** The rows of a page, from `start`, at most `limit` (0: the total alone). */
export interface PageBounds {
  start: number;
  limit: number;
}

type MatchesRow = { seq: number | string; total: number | string; plain: number | string };
type IndexedListPlan = Exclude<ListPlan, { kind: 'readable' }>;

export class StoreItemLists {
  private readonly reads: ListReads;
  private readonly walks: ListWalks;
  private readonly hint: FewReadableHint;
  private readonly lists: CompiledLists;

  constructor(data: DataAccess<StorageTables>, dialect: Dialect) {
    this.reads = new ListReads(data, dialect);
    this.walks = new ListWalks(this.reads);
    this.hint = new FewReadableHint(this.reads);
    this.lists = new CompiledLists((scope, input, plain) => compileStoreList(dialect, scope, input, plain));
  }

  /**
   * One page of the items the caller may read that the list parameters select, in their order (creation order where
   * there is no sort, and to break ties), with the total of them all. The plan is compiled for plain values first (SQL
   * without the parts that read documents); where a statement finds the store's values are not, the list is compiled
   * for any values and read again (and that compile is kept for a while). Throws AppError for invalid parameters.
   * With `changesFirst` (the store's change count, read now), the page comes with the change count for its tag
   * (ListPage.changes): a walk's statements read it themselves, other plans call `changesFirst` before their first.
   */
  async read(
    caller: StoreCaller,
    input: ListQueryInput,
    page: PageBounds,
    changesFirst?: () => Promise<string>,
  ): Promise<ListPage> {
    const scope: StoreScope = { ...caller, fewReadable: await this.hint.readsFew(caller) };
    const answer = await this.readList(scope, this.lists.get(scope, input), page, changesFirst);
    if (answer !== NOT_PLAIN) return answer;
    const general = await this.readList(scope, this.lists.general(scope, input), page, changesFirst);
    if (general === NOT_PLAIN) throw new Error('storage: a list compiled for any values found them not plain');
    return general;
  }

  /** The list by its plan, or NOT_PLAIN where a statement found that the plan's plain values were not. */
  private async readList(
    scope: StoreScope,
    list: CompiledList,
    { start, limit }: PageBounds,
    changesFirst: (() => Promise<string>) | undefined,
  ): Promise<ListPage | typeof NOT_PLAIN> {
    const { plan } = list;
    const walks = plan.kind !== 'readable' && plan.kind !== 'matches' && limit > 0;
    let changes = changesFirst && !walks ? await changesFirst() : undefined;
    if (plan.kind === 'readable') return { ...(await this.readable(scope, start, limit)), changes };
    // READABLE, every key the caller may read: the universe a NOT refers to, computed only then; built only where a
    // statement is (a list asked again runs its statements as built).
    const readable = () => readableKeys(granteesOf(scope));
    let known: number | undefined;
    if (walks) {
      const walked = await this.walks.page(scope, list, plan, readable, start, limit);
      if (walked === NOT_PLAIN) return NOT_PLAIN;
      if (walked.records) return { total: walked.total, records: walked.records, changes: walked.changes };
      known = walked.total;
      changes = walked.changes;
    }
    const answer = await this.matches(scope, list, plan, readable, known, start, limit);
    return answer === NOT_PLAIN ? answer : { ...answer, changes };
  }

  /**
   * The general plan: the matches (the query's set: index ranges of the caller's reader sets, or one pass over the
   * store where the index cannot answer), counted and sorted; `known`, their total where a walk counted it.
   */
  private async matches(
    scope: StoreScope,
    list: CompiledList,
    plan: IndexedListPlan,
    readable: () => RawBuilder<unknown>,
    known: number | undefined,
    start: number,
    limit: number,
  ): Promise<ListPage | typeof NOT_PLAIN> {
    const { set, orderBy, joins, needsItemRow } = plan.matches;
    const { db, dialect } = this.reads;
    // The matches computed once (MATERIALIZED) for the count and the page. Reading the set twice instead (count, then
    // the first keys) saved 2 ms of 5 on SQLite at 25,000 matches, but doubled PostgreSQL's time where its plans for
    // the set are poor (right after a bulk load: 67 -> 232 ms for a range filter at 100,000 items), so it was left.
    const withMatches = () => {
      const matches = set ? sql`SELECT q__k.seq FROM (${set}) AS q__k` : sql`SELECT seq FROM ${sql.table(READABLE)}`;
      return db
        .with(READABLE, () => sql`(${readable()})` as any)
        .with(
          (cte) => cte('q__m').materialized(),
          () => sql`(${matches})` as any,
        );
    };
    const countMatches = async () => {
      const counted = await this.reads.run(list, 'count', () =>
        plan.matches.kept
          ? sql`SELECT ${plan.matches.kept} AS n, ${plainColumn(plan.plain)} AS plain`.compile(db)
          : withMatches()
              .selectFrom('q__m' as any)
              .select([sql<number>`count(*)`.as('n'), plainColumn(plan.plain).as('plain')])
              .compile(),
      );
      const row = counted.rows[0] as { n?: number | string; plain: number | string };
      return Number(row.plain) === 1 ? Number(row.n ?? 0) : NOT_PLAIN;
    };
    if (limit === 0) {
      const total = await countMatches();
      return total === NOT_PLAIN ? NOT_PLAIN : { total, records: [] };
    }
    // Keys, their count and the sort keys only; the documents of the page are read afterwards. The item's row is
    // joined only when the sort needs a column of it.
    const pageStatement = () => {
      let page = needsItemRow
        ? withMatches()
            .selectFrom('q__m as m' as any)
            .innerJoin('storage_items as i', 'i.seq', 'm.seq' as any)
        : withMatches().selectFrom('q__m as i' as any);
      for (const join of joins) page = dialect.leftJoinRow(page, join.table, join.alias, join.on);
      const total = known === undefined ? sql<number>`(SELECT count(*) FROM q__m)` : sql<number>`0`;
      let ordered = page.select(['i.seq' as any, total.as('total'), plainColumn(plan.plain).as('plain')]);
      for (const o of orderBy) ordered = ordered.orderBy(o);
      return ordered
        .orderBy('i.seq' as any)
        .limit(limit)
        .offset(start)
        .compile() as CompiledQuery<MatchesRow>;
    };
    const { rows } = await this.reads.run(list, `page ${known === undefined} ${start} ${limit}`, pageStatement);
    if (rows.length === 0) {
      // No row carries the check of plain values: the count does (asked for anyway beyond the first page).
      if (!plan.plain && (known !== undefined || start === 0)) return { total: known ?? 0, records: [] };
      const total = await countMatches();
      return total === NOT_PLAIN ? NOT_PLAIN : { total: known ?? total, records: [] };
    }
    if (Number(rows[0].plain) !== 1) return NOT_PLAIN;
    const records = await this.reads.fetchPage(
      scope.tenantId,
      scope.storeId,
      rows.map((r) => Number(r.seq)),
    );
    return { total: known ?? Number(rows[0].total), records };
  }

  /**
   * Without query, filter or sort, the page and the total come from the access index alone: every access row
   * belongs to an item of its tenant and store (written and deleted in the item's transaction), so the items
   * table is touched only for the page's documents. At 1,000,000 items this spares reading the 20,000 rows a
   * reader of 1 role in 50 may see.
   */
  private async readable(scope: StoreScope, start: number, limit: number): Promise<ListPage> {
    const { db } = this.reads;
    const readable = readableKeys(granteesOf(scope));
    const countAll = async () => {
      const count = sql<{ n: number | string }>`SELECT count(*) AS n FROM (${readable}) r`;
      const { rows } = await this.reads.once(count.compile(db));
      return Number(rows[0]?.n ?? 0);
    };
    if (limit === 0) return { total: await countAll(), records: [] };
    // One statement for the page and its total, as in the general plan: both see the same snapshot.
    const { rows } = await this.reads.once(
      sql<{ seq: number | string; total: number | string }>`SELECT r.seq, count(*) over () AS total
        FROM (${readable}) r ORDER BY r.seq LIMIT ${limit} OFFSET ${start}`.compile(db),
    );
    if (rows.length === 0) return { total: start > 0 ? await countAll() : 0, records: [] };
    const records = await this.reads.fetchPage(
      scope.tenantId,
      scope.storeId,
      rows.map((r) => Number(r.seq)),
    );
    return { total: Number(rows[0].total), records };
  }
}
