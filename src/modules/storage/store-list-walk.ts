// A list's page read by a walk that stops after the page (a sort walk or a creation walk, store-list-plan.ts), with
// its total counted once per change of the store.
import { sql, type RawBuilder } from 'kysely';
import { rowsAsArrays } from '../../platform/db/prepared-query.js';
import { VALUE_FORM, VALUE_KIND } from '../../platform/query/index.js';
import type { CompiledList, Counted } from './store-list-cache.js';
import { NOT_PLAIN, type WalkPlan } from './store-list-plan.js';
import { itemTextOf, type ItemText, type ListReads } from './store-list-reads.js';
import type { StoreScope } from './store-scope.js';
import {
  itemsInCreationOrder,
  plainColumn,
  storeChanges,
  valueRowsInOrder,
  walkStatement,
  WALKED_PAGE,
  type WalkedRows,
  type WalkTies,
} from './store-walk-sql.js';

/** The only form of the values at a path (storage_value_keys.forms) whose index rows can be walked, and their kind. */
const WALKABLE = new Map<number, number>([
  [VALUE_FORM.number, VALUE_KIND.number],
  [VALUE_FORM.string, VALUE_KIND.string],
  [VALUE_FORM.boolean, VALUE_KIND.boolean],
]);
/** Index rows a walk reads at most for a page ending at `wanted` (then the general plan answers). */
const walkRows = (wanted: number) => 20 * wanted + 2000;
/** How long a list whose walk gave up (too few matches in its rows) takes the general plan before walking again. */
const WALK_RETRY_MS = 60_000;

/** A walk's answer where the guards it was given no longer hold (ListWalks.walkCounted). */
const STALE = Symbol('stale');

/** A walk's rows that show two equal sort values in a row (untiedPage). */
const TIED = Symbol('tied');

/**
 * A walk's answer: the total, and the page where the walk read it (else the general plan reads it), with the store's
 * change count that the walk's first counting statement read (the guards', or the walk's own where the total was kept:
 * then the page's rows are of that count's snapshot).
 */
export type Walked = { total: number; records?: ItemText[]; changes: string } | typeof NOT_PLAIN;

interface GuardRow {
  shape: number | string | null;
  unindexed: number | null;
  n: number | string;
  plain: number | string;
  changes: number | string | null;
}

/**
 * The page by walking, in the list's order, either the sort path's index rows or (no sort) the store's items in
 * creation order, readable ones only (their reader set), and keeping the matching items (each tested by probes of its
 * own rows): the cost follows the rows walked, not the matches. Only where it gives exactly the general plan's order
 * and the walk is expected to be short (at most walkRows rows). A sort walks only where every value the path ever held
 * in the store is one kind of scalar (storage_value_keys.forms: no arrays, objects, long strings or mixed kinds, whose
 * order differs), fewer rows than twice the matches; items without a value at the path sort last in both plans, so
 * when the walk finds fewer than the page needs, no page (the general plan answers). Creation order walks where the
 * page's share of the store's span of keys, times its matches' density, fits half the rows and the matches (a filter
 * on most of the store; a selective one, or a deep page, reads its matches instead). Every item must be indexed. A
 * walk that gave up is not tried again for a while (CompiledList.walkRetryAt). The total comes with the guards, one
 * round trip; the page's documents with the walk, another (PostgreSQL: 0.5 ms a round trip here, and the documents'
 * statement planned apart). The total (guards) and the page are two statements, so a write between them can make them
 * disagree by it.
 */
export class ListWalks {
  constructor(private readonly reads: ListReads) {}

  /** The walked page, or the total alone where the walk was not taken (`readable`: the READABLE keys' SELECT). */
  async page(
    scope: StoreScope,
    list: CompiledList,
    plan: WalkPlan,
    readable: () => RawBuilder<unknown>,
    start: number,
    limit: number,
  ): Promise<Walked> {
    // Asked again: the page alone, with the store's change count; where the count is what it was, so is the total.
    const seen = list.counted;
    if (seen) {
      // Nothing matched: nothing to walk, and nothing matches still where the store has not changed since (a poll for
      // new matches: one index range read, PostgreSQL 10,000 items, 50 connections, a reader with no matches: 990 ->
      // 9,044 lists/s).
      const answer =
        seen.total === 0
          ? (await this.storeUnchanged(scope, list, seen))
            ? { total: 0, records: [], changes: seen.changes }
            : STALE
          : await this.walkCounted(scope, list, plan, seen, start, limit, true);
      if (answer !== STALE) return answer;
      list.counted = undefined;
    }
    const { tenantId, storeId } = scope;
    const set = plan.matches.set;
    // Kept counts where the list has them (one predicate on one path): a sum over the caller's reader sets.
    const kept = plan.matches.kept;
    const count = () =>
      kept ? sql`SELECT ${kept}` : set ? sql`SELECT count(*) FROM (${set}) AS q__k` : sql`SELECT count(*) FROM q__r`;
    const ofStore = (alias: string) =>
      sql`${sql.ref(`${alias}.tenant_id`)} = ${tenantId} AND ${sql.ref(`${alias}.store_id`)} = ${storeId}`;
    // The path's forms (a sort), or the span of the store's keys (creation order: max and min, one index entry each).
    const shape =
      plan.kind === 'creation-walk'
        ? sql`(SELECT max(o.seq) FROM storage_items o WHERE ${ofStore('o')})
            - (SELECT min(o.seq) FROM storage_items o WHERE ${ofStore('o')})`
        : sql`(SELECT k.forms FROM storage_value_keys k WHERE ${ofStore('k')} AND k.path = ${plan.path})`;
    // Each guard reads one index entry (PostgreSQL: in the index's order, see AssetLists.walk).
    const guards = await this.reads.run(list, 'guards', () =>
      sql<GuardRow>`WITH q__r AS (${readable()})
      SELECT ${shape} AS shape,
        (SELECT 1 FROM storage_items u WHERE ${ofStore('u')} AND u.idx <> 1
          ORDER BY u.tenant_id, u.store_id, u.seq LIMIT 1) AS unindexed,
        (${count()}) AS n, ${plainColumn(plan.plain)} AS plain,
        ${storeChanges(scope)} AS changes`.compile(this.reads.db),
    );
    const g = guards.rows[0];
    if (Number(g.plain) !== 1) return NOT_PLAIN;
    const counted: Counted = {
      shape: g.shape,
      unindexed: g.unindexed,
      total: Number(g.n),
      changes: String(g.changes),
    };
    list.counted = counted;
    const answer = await this.walkCounted(scope, list, plan, counted, start, limit, false);
    return answer === STALE ? { total: counted.total, changes: counted.changes } : answer;
  }

  /**
   * The page by the walk, with the guards as counted (`c`). With `check`, the guards were counted by an earlier list:
   * the answer stands only where the walk ran and read the store's change count as `c` has it (in its own snapshot,
   * so the store's items are as they were when counted); else STALE, and the list counts again.
   */
  private async walkCounted(
    scope: StoreScope,
    list: CompiledList,
    plan: WalkPlan,
    c: Counted,
    start: number,
    limit: number,
    check: boolean,
  ): Promise<Walked | typeof STALE> {
    const { total, changes } = c;
    const noWalk = check ? STALE : { total, changes };
    const rows = walkRows(start + limit);
    if (c.unindexed !== null || total === 0 || list.walkRetryAt > Date.now()) return noWalk;
    const { dialect } = this.reads;
    // The walked rows are built where the walk's statement is (once per list and key), not per request.
    let key: (ties: WalkTies) => string;
    let walked: (ties: WalkTies) => WalkedRows;
    if (plan.kind === 'creation-walk') {
      // The rows the walk is expected to read: at most half its bound, and no more than the matches the general plan
      // would sort instead (deep pages: at 100,000 items and 25,000 matches, a page at 10,000 walked in 18 ms, about
      // twice the general plan; at 2,000 in 7 ms, less).
      const expected = ((start + limit) * (Number(c.shape) + 1)) / total;
      if (expected > rows / 2 || expected > Math.max(total, walkRows(0))) return noWalk;
      key = () => 'items';
      walked = () => ({
        key: 'items',
        rows: itemsInCreationOrder(dialect, scope, rows),
        columns: ['seq'],
        order: () => undefined,
      });
    } else {
      const kind = WALKABLE.get(Number(c.shape ?? 0));
      if (kind === undefined || rows > 2 * total) return noWalk;
      key = (ties) => `${kind} ${ties}`;
      walked = (ties) => ({
        key: key(ties),
        ...valueRowsInOrder(dialect, scope, plan.path, kind, plan.direction, rows, ties),
      });
    }
    const read = async (ties: WalkTies, from: number, count: number) => {
      const { rows: read } = await this.reads.run(list, `walk ${key(ties)} ${from} ${count}`, () =>
        rowsAsArrays<unknown[]>(
          walkStatement(dialect, plan, scope, walked(ties), from, count, ties).compile(this.reads.db),
        ),
      );
      return read;
    };
    let page: unknown[][] | undefined;
    // A sort's walk leaves equal values unsorted (WalkTies) until the list shows some: its page, read with the rows
    // on both sides of it, stands where none are equal; else the walk is read again, sorting them.
    if (plan.kind !== 'creation-walk' && !list.walkTies) {
      const before = start > 0 ? 1 : 0;
      const untied = untiedPage(await read('index', start - before, limit + before + 1), before, limit);
      if (untied === TIED) list.walkTies = true;
      else page = untied;
    }
    page ??= await read('seq', start, limit);
    const first = page[0];
    if (check && (first === undefined || String(WALKED_PAGE.get(first, 'changes')) !== c.changes)) return STALE;
    if (first !== undefined && Number(WALKED_PAGE.get(first, 'plain')) !== 1) return NOT_PLAIN;
    if (page.length < limit && start + page.length < total) {
      list.walkRetryAt = Date.now() + WALK_RETRY_MS;
      return noWalk;
    }
    return { total, records: page.map((row) => itemTextOf(WALKED_PAGE, row)), changes };
  }

  /** Whether the store's change count is what it was when the list was counted (`c`). */
  private async storeUnchanged(scope: StoreScope, list: CompiledList, c: Counted): Promise<boolean> {
    const { rows } = await this.reads.run(list, 'changes', () =>
      sql<{ changes: number | string | null }>`SELECT ${storeChanges(scope)} AS changes`.compile(this.reads.db),
    );
    return String(rows[0]?.changes) === c.changes;
  }
}

/**
 * The page of a walk whose equal sort values came unsorted (WalkTies 'index'), read from the row before the page
 * (`before`: 1, or 0 for the first page) to the row after it: the page as the general plan orders it where no two rows
 * in a row have equal values (then each of its rows is the only one of its value: the order of equal values cannot
 * matter, and every row of a value before the row after was walked); TIED where two have; undefined where there is no
 * row after the page (the walk may have stopped inside a run of equal values, or the matches ended: read it sorted).
 */
function untiedPage(rows: unknown[][], before: number, limit: number): unknown[][] | typeof TIED | undefined {
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]];
    if (
      WALKED_PAGE.get(a, 'num') === WALKED_PAGE.get(b, 'num') &&
      WALKED_PAGE.get(a, 'str') === WALKED_PAGE.get(b, 'str')
    )
      return TIED;
  }
  return rows.length > before + limit ? rows.slice(before, before + limit) : undefined;
}
