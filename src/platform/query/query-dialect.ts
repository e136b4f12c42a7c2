import type { Kysely, RawBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import type { DocumentTarget, IndexedTarget, JsonColumn, KeyRange, ValueTest } from './query-ast.js';
import type { TextSearch } from './text-terms.js';

// What the list-query compiler needs of a database engine. The engines' SQL for it lives in their dialects
// (platform/db/dialects: query-*.ts, words-*.ts), whose Dialect extends ListQueryDialect.

export type QueryColumnType = 'text' | 'number' | 'boolean' | 'datetime';

/**
 * SQL of the list-query compiler (platform/query). Every value is a bound parameter; `column` is a trusted
 * reference (`alias.column`); path segments are checked again before they become a JSON path. A document column
 * (JsonColumn) may hold JSON text where the engine has a JSON type (`text`): the dialect then parses it where it reads
 * a value inside.
 */
export interface QueryDialect {
  /** True when some scalar at the JSON path (the value itself, or any element of an array value) passes a test. */
  jsonAny(document: JsonColumn, path: string[], tests: ValueTest[]): RawBuilder<SqlBool>;
  /** True when the column value passes a test; never NULL. `datetime` columns hold epoch milliseconds. */
  columnAny(column: string, type: QueryColumnType, tests: ValueTest[]): RawBuilder<SqlBool>;
  /** Case-insensitive LIKE (escape character backslash) over the JSON text of the target. */
  textLike(target: DocumentTarget, pattern: string): RawBuilder<SqlBool>;
  /** ORDER BY items: missing and null values last, numbers numerically before strings in code point order. */
  orderBy(target: DocumentTarget, direction: 'ASC' | 'DESC'): RawBuilder<unknown>[];
  /**
   * The tests on one value index row aliased `alias` (columns t, num, str; platform/query/value-index.ts) that the
   * index answers exactly; null when no test can match an indexed value (the caller then matches nothing).
   */
  indexTests(alias: string, tests: ValueTest[], generic?: boolean): RawBuilder<SqlBool> | null;
  /**
   * A bound value that the planner estimates as it would in a generic plan, also in a plan made for the values
   * (QueryContext.genericValues): PostgreSQL an InitPlan `(SELECT $1::type)`; SQLite, which keeps one plan, as is.
   * `indexTests` with `generic` writes its range bounds so.
   */
  genericValue(value: unknown, type: 'text' | 'float8'): RawBuilder<unknown>;
  /**
   * How a predicate on an indexed value asks the index: `set` builds the set of matching keys once per statement
   * (SQLite always materialises an IN subquery, and may drive the query from it); `exists` probes the item's rows per
   * item (PostgreSQL: an IN subquery may be re-run for every item when statistics are stale, a probe cannot).
   */
  readonly indexMembership: 'set' | 'exists';
  /**
   * Whether a walk's probe of one item's rows at a path (`byKey` membership) seeks the path's key in the item index
   * (SQLite: the probe then reads the one row; a walk over 10,000 items filtered on one status, the walk statement
   * 1,283 -> 1,050 us) or tests it on each of the item's rows (`vk + 0`: PostgreSQL, whose planner may otherwise take
   * the value-major lookup index for the probe and read every row of the value once per item).
   */
  readonly probeSeeksPath: boolean;
  /**
   * ORDER BY items of an indexed value, in the same order as `orderBy` gives the document's value: from the index row
   * `row` (the value at the path itself, LEFT JOINed) where the item is indexed and the row is exact, otherwise from
   * the document. `absent`: a condition under which a missing row means no value at the path (compile-indexed.ts
   * absentAt), so that the document need not be read (PostgreSQL, whose text documents are parsed at each read).
   */
  indexedOrderBy(
    target: IndexedTarget,
    row: string,
    direction: 'ASC' | 'DESC',
    absent: RawBuilder<SqlBool>,
  ): RawBuilder<unknown>[];
}

/**
 * A full-text index of words per item key. The words come tokenised and folded by the service
 * (platform/query/text-terms.ts), so both engines hold and find the same words; the engine stores them in its own
 * full-text structure, whose writes stay cheap (SQLite FTS5 segments, PostgreSQL GIN's pending list) where a b-tree
 * row per word would dirty a page per word.
 */
/** The words and reserved tokens of one key of a words index (WordIndexDialect.insert). */
export interface WordRow {
  seq: number;
  words: readonly string[];
  tokens: readonly string[];
}

export interface WordIndexDialect {
  /** Creates the index `table` (SQLite: an FTS5 table keyed by rowid; PostgreSQL: a tsvector per key, GIN-indexed). */
  create(db: Kysely<any>, table: string): Promise<void>;
  /**
   * The statement that stores the words and reserved tokens (text-terms.ts reservedToken; at least one of both) of
   * each key `seq` (at least one row; one statement for a batch of items). Tokens are found by `match` only where it
   * names them, never by a word, prefix or pattern.
   */
  insert(table: string, rows: readonly WordRow[]): RawBuilder<unknown>;
  /** The statement that removes the words of key `seq`. */
  remove(table: string, seq: number): RawBuilder<unknown>;
  /**
   * A SELECT of the keys (column `seq`) whose words match (`words` search: at least one word); with `anyOf` (at least
   * one; `words` and `prefix` searches), only keys that also hold one of these tokens.
   */
  match(table: string, search: TextSearch, anyOf?: string[]): RawBuilder<unknown>;
  /**
   * The condition that the words of key `key` match, as `match` has them (with `anyOf`, the key also holds one of these
   * tokens), for a list that tests its items one by one (a walk in creation or sort order) and stops after its page:
   * PostgreSQL probes the key's row; SQLite looks the key up in the matches, listed once per statement (with `within`,
   * the keys the walk tests lie in that range: only the matches there are listed).
   */
  matchKey(
    table: string,
    search: TextSearch,
    key: RawBuilder<unknown>,
    anyOf?: string[],
    within?: KeyRange,
  ): RawBuilder<SqlBool>;
}

/** The parts of an engine's dialect (platform/db/dialects/dialect.ts Dialect) that the list-query compiler uses. */
export interface ListQueryDialect {
  /** Column type for epoch-millisecond timestamps and other 64-bit integers. */
  readonly bigintColumnType: 'integer' | 'bigint';
  /** SQL of the list-query compiler: JSON extraction, typed comparison, dates, sorting. */
  readonly query: QueryDialect;
  /** The full-text index of the value index's documents. */
  readonly words: WordIndexDialect;
  /** `column IN (subquery)` in the form the engine's planner answers by key probes (PostgreSQL: `= ANY(ARRAY(...))`). */
  inSubquery(
    column: RawBuilder<unknown>,
    subquery: SelectQueryBuilder<any, any, any> | RawBuilder<unknown>,
  ): RawBuilder<SqlBool>;
}
