// A list's plan as data: what the list compiler (storage.query.ts) answers and the list reads (StoreItemLists)
// carry out. The compiler decides what a list can be read by; the reads decide, by what they find in the store (the
// forms of a path, how many items match), whether a walk runs or the matches are counted and sorted.
import type { RawBuilder, SqlBool } from 'kysely';
import type { SortJoin } from '../../platform/query/index.js';

/** The CTE of the keys the caller may read, which the list reads define: the universe of a NOT in `set`. */
export const READABLE = 'q__r';
/**
 * The CTE of a walk's statement (store-walk-sql.ts walkStatement): one row, the least (`lo`) and greatest (`hi`) key
 * its walk may test, which a walk's `where` may refer to (ValueIndexSource.walkedKeys).
 */
export const WALKED_KEYS = 'q__walked_keys';

/**
 * The general plan: the matching items the caller may read as a SELECT of their keys (`seq`, each once; it may refer to
 * READABLE), counted, then sorted by `orderBy` over the item aliased `i` and by creation order (`i.seq`) to break ties.
 * `joins`: the sort's value rows; `needsItemRow`: the sort reads a column of the item's row, not only its key.
 */
export interface MatchesPlan {
  set?: RawBuilder<unknown>;
  orderBy: RawBuilder<unknown>[];
  joins: SortJoin[];
  needsItemRow: boolean;
  /**
   * The total of the matches from kept counts (storage_value_counts: platform/query kept-total.ts), a scalar subquery
   * valid where the plan's plain check holds; undefined where the list's shape has none (then the set is counted).
   */
  kept?: RawBuilder<unknown>;
}

/** What every plan that reads the value index has. */
interface IndexedPlan {
  /** The general plan: what a walk falls back to, or the plan itself. */
  matches: MatchesPlan;
  /**
   * Compiled for plain values (platform/query ValueIndexSource.plain): the condition under which the plan answers as
   * the general compile does, which every statement of the list checks in its own snapshot. Where it does not hold, the
   * reads answer NOT_PLAIN and the list is compiled again for any values.
   */
  plain?: RawBuilder<SqlBool>;
}

export type ListPlan =
  /** Neither query, filter nor sort: the caller's access rows give the page and the total, in creation order. */
  | { kind: 'readable' }
  /** The matches, counted and sorted. */
  | (IndexedPlan & { kind: 'matches' })
  /**
   * Sorted by one indexed value: the path's index rows walked in the sort's order, each item tested by `where` (the
   * query and filter as a condition on the item aliased `i`; undefined where neither restricts anything).
   */
  | (IndexedPlan & { kind: 'sort-walk'; path: string; direction: 'ASC' | 'DESC'; where?: RawBuilder<SqlBool> })
  /** A query or filter and no sort: the store's items walked in creation order, each tested by `where`. */
  | (IndexedPlan & { kind: 'creation-walk'; where: RawBuilder<SqlBool> });

export type WalkPlan = Extract<ListPlan, { kind: 'sort-walk' | 'creation-walk' }>;

/** A list's answer where a statement found that the values its plan assumed plain are not (IndexedPlan.plain). */
export const NOT_PLAIN = Symbol('not plain');
