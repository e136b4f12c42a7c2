// Compiled lists, remembered with what reading them taught: a list asked again (a page polled by many clients, or
// paged through) reuses its plan, its built statements and its walk's counted total.
import type { CompiledQuery } from 'kysely';
import { ExpiringMap } from '../../platform/cache/expiring-map.js';
import type { ListQueryInput } from '../../platform/query/index.js';
import type { ListPlan } from './store-list-plan.js';
import type { StoreScope } from './store-scope.js';

/** Statements kept per compiled list (CompiledList.statement). */
const STATEMENTS_PER_LIST = 8;
/** Compiled lists kept, and the longest key kept (a longer one is compiled each time). */
const REMEMBERED_MAX = 1000;
const REMEMBERED_KEY_MAX = 4096;
/**
 * How long a list whose store did not hold plain values is compiled the general way before plain values are assumed
 * again (the indexer may have caught up; a path's forms are only ever added to).
 */
const GENERAL_KEPT_MS = 60_000;

/** A walked list's guards (ListWalks.page) and the store's change count in the same snapshot. */
export interface Counted {
  shape: number | string | null;
  unindexed: number | null;
  total: number;
  changes: string;
}

/** A list's plan and what reading it has taught, kept together as long as the plan is remembered. */
export class CompiledList {
  /** Statements built for the plan, by key (what a statement depends on besides the plan: a page's bounds, say). */
  private readonly statements = new Map<string, CompiledQuery<unknown>>();
  /**
   * Until when (epoch ms) the walk is not tried again: it gave up, having read its rows without filling the page
   * (matches that come late in the walk's order: say the open items are the newest). Each try costs up to its bound of
   * rows on top of the general plan, so a list that keeps asking pays for it once a minute, not every time.
   */
  walkRetryAt = 0;
  /**
   * The walk's guards as last counted, with the store's change count they were counted at (storage-008): a list asked
   * again while the store is unchanged reads its page only, not the count of its matches again (PostgreSQL, 10,000
   * items, half reader, filter + sort, 50 connections: the guards were about half the server's time a list).
   */
  counted?: Counted;
  /**
   * Whether a walk of this list in a sort's order has met equal sort values: from then on it sorts them by key in the
   * statement (WalkTies 'seq'), not after reading its page without (a boolean, a status: most pages).
   */
  walkTies = false;

  constructor(readonly plan: ListPlan) {}

  /**
   * The statement `build` makes, built and compiled to SQL text once per `key`: building a list's statements (Kysely's
   * trees, their SQL text) took as long as compiling its query had. A few per list (pages asked for apart).
   */
  statement<R>(key: string, build: () => CompiledQuery<R>): CompiledQuery<R> {
    let query = this.statements.get(key) as CompiledQuery<R> | undefined;
    if (!query) {
      query = build();
      if (this.statements.size >= STATEMENTS_PER_LIST) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(key, query);
    }
    return query;
  }
}

/** Compiles a list's plan: for plain values first (`plain`), or for any values. */
export type ListCompiler = (scope: StoreScope, input: ListQueryInput, plain: boolean) => ListPlan;

/**
 * The compiled lists, by parameters and scope: a plan depends only on them (no clock, no data: the index's state is
 * read by the statements themselves), and compiling one took 0.2 ms of a 1.6 ms list. The SQL a plan holds is
 * immutable (Kysely's raw builders are frozen), so one plan serves every request that asks for it.
 */
export class CompiledLists {
  private readonly remembered = new ExpiringMap<string, CompiledList>(REMEMBERED_MAX);

  constructor(private readonly compile: ListCompiler) {}

  /** The list compiled for plain values, or the general compile kept in its place (general). */
  get(scope: StoreScope, input: ListQueryInput): CompiledList {
    const key = rememberedKey(scope, input);
    const known = key === undefined ? undefined : this.remembered.get(key);
    if (known) return known;
    const list = new CompiledList(this.compile(scope, input, true));
    if (key !== undefined) this.remembered.set(key, list, Number.POSITIVE_INFINITY);
    return list;
  }

  /**
   * The list compiled for any values, where the store's values were found not plain: kept in place of the plain compile
   * for GENERAL_KEPT_MS.
   */
  general(scope: StoreScope, input: ListQueryInput): CompiledList {
    const list = new CompiledList(this.compile(scope, input, false));
    const key = rememberedKey(scope, input);
    if (key !== undefined) this.remembered.set(key, list, Date.now() + GENERAL_KEPT_MS);
    return list;
  }
}

/** What a plan depends on, as a key; undefined where it is too long to keep. */
function rememberedKey(scope: StoreScope, input: ListQueryInput): string | undefined {
  const key = JSON.stringify([
    scope.tenantId,
    scope.storeId,
    scope.grantees,
    scope.fewReadable === true,
    input.query ?? null,
    input.filter ?? null,
    input.sort ?? null,
    input.timezoneName ?? null,
    input.timezoneOffset ?? null,
  ]);
  return key.length <= REMEMBERED_KEY_MAX ? key : undefined;
}
