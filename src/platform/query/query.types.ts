// The contract between the query compiler (platform/query) and its users (storage, the engine's
// data management API). Parsing is pure; compilation yields Kysely SQL fragments.
import type { RawBuilder, SqlBool } from 'kysely';
import type { ListQueryDialect } from './query-dialect.js';

export type { FieldTarget } from './query-ast.js';
import type { DocumentTarget, FieldTarget, QueryNode } from './query-ast.js';

type TextNode = Extract<QueryNode, { type: 'text' }>;
import type { IndexMembership, SortJoin } from './compile-indexed.js';

/** Maps a dotted property (`value.status`, `customFields.x`, `attributes.ns:key`) to SQL; null: unknown (matches as missing). */
export type FieldResolver = (property: string) => FieldTarget | null;

/** One condition of the `filter` JSON array (decisions.md section 5). */
export interface FilterCondition {
  property: string;
  operator: string;
  value?: unknown;
  source?: string;
  invert?: boolean;
}

export interface SortInstruction {
  property: string;
  direction: 'ASC' | 'DESC';
}

/** The list-read parameters as the client sent them (strings) or already parsed (data management). */
export interface ListQueryInput {
  query?: string;
  filter?: string | FilterCondition[];
  sort?: string | SortInstruction[];
  timezoneName?: string;
  timezoneOffset?: string;
}

export interface QueryContext {
  dialect: ListQueryDialect;
  resolve: FieldResolver;
  /** The JSON document that a bare Lucene term (no field) searches as text. */
  fullText: DocumentTarget;
  /** How a predicate on an indexed value finds its items (default: the dialect's `indexMembership`). */
  indexMembership?: IndexMembership;
  /**
   * A bare term as a condition on the item: by default a pattern over its document's text; where a words index answers
   * bare terms (compile-sets.ts), membership in that set, so that both give the same items.
   */
  textMember?: (node: TextNode) => RawBuilder<SqlBool>;
  /**
   * Sets (compile-sets.ts) name the scope, the path and a range's bounds of an indexed predicate as generic values
   * (QueryDialect.genericValue), for a statement prepared by shape whose plan should not follow them: PostgreSQL
   * estimates a range with a parameter as a third of the rows in its generic plan, a plan for the values then always
   * costs less, and it planned such a statement at every run (the asset query's count, 0.65-1.5 ms a run).
   */
  genericValues?: boolean;
}

export interface CompiledListQuery {
  /** AND of query and filter; undefined when neither restricts anything. */
  where?: RawBuilder<SqlBool>;
  /** ORDER BY items, direction and null placement included (missing values last). */
  orderBy: RawBuilder<unknown>[];
  /** LEFT JOINs the ORDER BY items refer to (sorts on indexed values), in their order. */
  joins: SortJoin[];
}
