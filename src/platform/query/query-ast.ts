import type { RawBuilder, SqlBool } from 'kysely';
import type { TextSearch } from './text-terms.js';
// The engine-independent form of `query` and `filter`: both parse to this tree, which compiles to SQL.

export type CompareOp = '=' | '>' | '>=' | '<' | '<=';

export interface Comparison<T> {
  op: CompareOp;
  value: T;
}

/**
 * One way a single scalar may match. Comparisons of one test apply to the same scalar (a range on an array
 * needs one element inside both bounds). A property matches when any scalar at it (the value itself or an
 * element of an array value) passes any test of the predicate.
 */
export type ValueTest =
  | { kind: 'number'; conds: Comparison<number>[] }
  /** Case-sensitive, lexical (code point order). */
  | { kind: 'string'; conds: Comparison<string>[] }
  /** Case-insensitive equality. */
  | { kind: 'stringCi'; value: string }
  /** Case-insensitive SQL LIKE pattern, escape character backslash. */
  | { kind: 'like'; pattern: string }
  | { kind: 'boolean'; value: boolean }
  /**
   * Compared as instants (epoch milliseconds). Stored strings that read as ISO dates take part; other stored
   * values do not match. `columnsOnly`: applies to datetime columns only, not to JSON values (equality on JSON
   * strings stays string equality).
   */
  | { kind: 'instant'; conds: Comparison<number>[]; columnsOnly?: boolean }
  /** Any non-null value. */
  | { kind: 'present' };

export type QueryNode =
  | { type: 'and'; items: QueryNode[] }
  | { type: 'or'; items: QueryNode[] }
  | { type: 'not'; item: QueryNode }
  | { type: 'predicate'; property: string; tests: ValueTest[] }
  /**
   * A bare term. `search`: the words a full-text index looks up (text-terms.ts); `pattern`: a case-insensitive LIKE
   * pattern over the JSON text of the item, for documents no index covers.
   */
  | { type: 'text'; pattern: string; search: TextSearch }
  | { type: 'all' }
  | { type: 'none' };

export const ALL: QueryNode = { type: 'all' };
export const NONE: QueryNode = { type: 'none' };

export function and(items: QueryNode[]): QueryNode {
  const kept = items.filter((n) => n.type !== 'all');
  if (kept.some((n) => n.type === 'none')) return NONE;
  if (kept.length === 0) return ALL;
  return kept.length === 1 ? kept[0] : { type: 'and', items: kept };
}

export function or(items: QueryNode[]): QueryNode {
  const kept = items.filter((n) => n.type !== 'none');
  if (kept.some((n) => n.type === 'all')) return ALL;
  if (kept.length === 0) return NONE;
  return kept.length === 1 ? kept[0] : { type: 'or', items: kept };
}

export function not(item: QueryNode): QueryNode {
  if (item.type === 'all') return NONE;
  if (item.type === 'none') return ALL;
  if (item.type === 'not') return item.item;
  return { type: 'not', item };
}

/**
 * A JSON document column: `column` is a trusted SQL reference such as `i.doc`. `text`: the column holds the document
 * as JSON text on every engine, not in the engine's JSON type (PostgreSQL: text, not jsonb), so that reads copy it out
 * as written; the dialect parses it where SQL reads a value inside it.
 */
export interface JsonColumn {
  column: string;
  text?: boolean;
}

/** Where a property lives in SQL. */
export type FieldTarget =
  /** A value inside a JSON document column (JsonColumn). */
  | ({ kind: 'json'; path: string[] } & JsonColumn)
  /**
   * A plain column; `column` is a trusted SQL reference such as `a.custom_id`. `datetime` columns hold epoch
   * milliseconds (`dialect.bigintColumnType`); a `text` column holding ISO 8601 strings also compares as dates.
   */
  | { kind: 'column'; column: string; type: 'text' | 'number' | 'boolean' | 'datetime' }
  /** A value inside a JSON document that a value index covers (value-index.ts); `path` as for `json`. */
  | {
      kind: 'indexed';
      path: string[];
      source: ValueIndexSource;
      /**
       * The column of the value rows that orders strings (default `str`): a key the module writes next to `str`, such
       * as a case-folded one, for sorts in another order than code points. Filters always test `str`.
       */
      stringKey?: string;
    };

/** A target the dialects read directly (no value index). */
export type DocumentTarget = Exclude<FieldTarget, { kind: 'indexed' }>;
export type IndexedTarget = Extract<FieldTarget, { kind: 'indexed' }>;

/**
 * Where a module keeps the value index of its documents. The items table has the columns `seq` (key), `doc` (the
 * document) and `idx` (1: the document's rows are in the index; otherwise a query reads the document); the values
 * table has `item_seq`, `path`, `t`, `elem`, `num` and `str` (value-index.ts) and the same scope columns.
 */
/** Two scalar SQL expressions, the least and the greatest key of a range (both included). */
export interface KeyRange {
  from: RawBuilder<unknown>;
  to: RawBuilder<unknown>;
}

export interface ValueIndexSource {
  itemsTable: string;
  valuesTable: string;
  /** Columns both tables share with the values a query is limited to (for example tenant_id and store_id). */
  scope: Array<[column: string, value: string]>;
  /** The item of the outer query: its alias (`i`), whose `seq`, `doc` and `idx` the SQL refers to. */
  alias: string;
  /** The items table's `doc` holds JSON text on every engine (JsonColumn.text). */
  documentText?: boolean;
  /** The full-text index of the documents' words (Dialect.words), keyed by `seq`; none: bare terms read documents. */
  wordsTable?: string;
  /**
   * Where the value rows name their scope and path by one integer key `vk` instead of the scope columns and `path`:
   * a table (`id`, the scope columns, `path`) with one row per scope and path.
   */
  keysTable?: string;
  /**
   * The keys table has a column `forms`: the VALUE_FORM bits of every value its path has held (only ever added to).
   * Then the parts of a set for forms a path never held (array elements, long strings) are skipped at once.
   */
  keyForms?: boolean;
  /**
   * Who may read: where the value rows carry the item's reader set (`rs`) and the lookup index of the values table
   * ends with (elem, item_seq, rs). Then a set (compile-sets.ts) holds only the items the caller may read, each once:
   * value rows are kept by `rs IN sets`, and items read as documents by the probe `mayRead`.
   */
  readers?: {
    /** A SELECT of the reader sets the caller may read. */
    sets: RawBuilder<unknown>;
    /** Whether the caller may read the item of key `key`. */
    mayRead(key: RawBuilder<unknown>): RawBuilder<SqlBool>;
    /**
     * Where the caller may read few of the store's items: `keys`, a SELECT of `seq`, those items each once. A test of
     * an indexed value then probes the rows of each of them instead of reading the value's index range (whose rows are
     * in item order, the reader set last: compile-sets.ts `readableRows`). A hint: the answer is the same without it.
     */
    few?: { keys: RawBuilder<unknown> };
    /**
     * The words index's tokens of the caller (text-terms.ts reservedToken), where each item's words row has those of
     * the grantees who may read it: a bare term then finds the store's readable items inside the index, with no probe
     * per match. Undefined: probes.
     */
    tokens?: string[];
  };
  /**
   * The bounds of the keys a walk tests its item condition on (the key aliased `alias`), as scalars the walk's statement
   * defines: a bare term's probe of the words index may read only the matches between them (Dialect.words.matchKey).
   */
  walkedKeys?: KeyRange;
  /**
   * Compile for plain values: as if every path a predicate reads held only scalars the index answers (no arrays, no
   * long strings) and every item were indexed, so that the parts reading documents are left out of the SQL (planning
   * and running them cost even when they find nothing). The compiler records what it assumed here; the statements
   * must check it (`plainCheck`) and the caller compile again without it where it does not hold.
   */
  plain?: PlainAssumption;
  /**
   * Kept counts of the index (kept-total.ts): a table with one row per path key (`vk`), exact scalar (`t`, `num`,
   * `str`), reader set (`rs`) and shard, whose `n` is how many items hold that value at the path itself (not as an
   * array element), kept in the writes' transactions. Needs `keysTable` and `readers`.
   */
  counts?: string;
  /**
   * Kept counts of the words index (kept-total.ts): a table with one row per word (`term`), reader set (`rs`) and
   * shard, whose `n` is how many items of the set have the word in their words row, kept in the writes' transactions.
   * Needs `wordsTable` and `readers`.
   */
  termCounts?: string;
}

/** What a compile for plain values assumed (ValueIndexSource.plain), filled in by the compiler. */
export interface PlainAssumption {
  /** Paths assumed to hold no arrays and no long strings. */
  paths: Set<string>;
  /** Whether a part for the items without index rows was left out (then: assumed there are none). */
  allIndexed: boolean;
}
