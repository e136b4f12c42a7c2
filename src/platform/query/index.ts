// The list-query compiler: `query` (Lucene syntax), `filter` (JSON conditions), `sort` and the time zone of a list
// read, parsed purely and compiled to Kysely SQL fragments. Used by storage and the engine's data management API.
import type { RawBuilder, SqlBool } from 'kysely';
import type { CompiledListQuery, ListQueryInput, QueryContext, SortInstruction } from './query.types.js';
import type { QueryNode, ValueIndexSource } from './query-ast.js';
import { compileSet, compileTextOfItem } from './compile-sets.js';
import type { IndexMembership, SortJoin } from './compile-indexed.js';
import { and } from './query-ast.js';
import { compileNode, compileSort } from './compile.js';
import { keptTotal } from './kept-total.js';
import { filterToNode, parseFilter } from './parse-filter.js';
import { parseQueryString } from './parse-query-string.js';
import { parseSort } from './parse-sort.js';
import { resolveZone } from './timezone.js';

export type {
  CompiledListQuery,
  FieldResolver,
  FieldTarget,
  FilterCondition,
  ListQueryInput,
  QueryContext,
  SortInstruction,
} from './query.types.js';
export type { PlainAssumption, QueryNode, ValueTest, ValueIndexSource } from './query-ast.js';
export type { SortJoin } from './compile-indexed.js';
export { plainCheck, walkedKind } from './compile-indexed.js';
export {
  documentIndex,
  VALUE_FORM,
  VALUE_INDEX_LIMITS,
  VALUE_KIND,
  type DocumentIndex,
  type ValueIndexRow,
} from './value-index.js';
export { parseFilter, filterToNode, isRangeOperator, type NormalizedCondition } from './parse-filter.js';
export { parseSort } from './parse-sort.js';
export { parseQueryString } from './parse-query-string.js';
export { resolveZone, parseDateValue, type Zone } from './timezone.js';
export { QUERY_LIMITS } from './limits.js';
export { stringKeyOf } from './sql-parts.js';
export { reservedToken, RESERVED_TOKEN_MARK } from './text-terms.js';

/** The list parameters as a tree, its sort instructions parsed; validation as compileListQuery. */
function parseListInput(input: ListQueryInput): { node: QueryNode; sorts: SortInstruction[] } {
  const zone = resolveZone(input.timezoneName, input.timezoneOffset);
  const filter = filterToNode(parseFilter(input.filter), zone);
  const query = parseQueryString(input.query, zone);
  return { node: and([query, filter]), sorts: parseSort(input.sort) };
}

/**
 * The list parameters over documents a value index covers (`source`): the items that match, as a SELECT of their keys
 * (`seq`) within `universe` (a table or CTE of the keys the caller may read; undefined when nothing is filtered), and
 * the sort. `needsItemRow`: the sort refers to the item's row (aliased as the source's alias), not only to its key.
 * With `itemCondition`, from the same parse: the query and filter as a condition on one item whose indexed values are
 * found that way (`where`, undefined when nothing is filtered), and the sort instructions (`sorts`), for a module that
 * may walk a sort's index instead. `kept`: the total of the matches from the source's kept counts, where it has them
 * and the list is one predicate on one indexed path (kept-total.ts); else the count of the set is the total.
 */
export function compileListQuerySets(
  input: ListQueryInput,
  ctx: QueryContext,
  source: ValueIndexSource,
  universe: string,
  itemCondition?: IndexMembership,
): {
  set?: RawBuilder<unknown>;
  orderBy: RawBuilder<unknown>[];
  joins: SortJoin[];
  needsItemRow: boolean;
  sorts: SortInstruction[];
  where?: RawBuilder<SqlBool>;
  kept?: RawBuilder<unknown>;
} {
  const { node, sorts } = parseListInput(input);
  const { orderBy, joins } = compileSort(sorts, ctx);
  const needsItemRow = sorts.some((s) => {
    const target = ctx.resolve(s.property);
    return target !== null && target.kind !== 'indexed';
  });
  if (node.type === 'all') return { orderBy, joins, needsItemRow, sorts };
  // A bare term on one item: a probe of its words where a words index answers it (whole words), as the set itself
  // does; the document's text (a pattern over all of it) would find words inside other words too.
  const textMember = source.wordsTable
    ? (text: Extract<QueryNode, { type: 'text' }>) => compileTextOfItem(text, ctx, source)
    : undefined;
  const where = itemCondition ? compileNode(node, { ...ctx, indexMembership: itemCondition, textMember }) : undefined;
  const set = compileSet(node, ctx, source, universe);
  return { set, orderBy, joins, needsItemRow, sorts, where, kept: keptTotal(node, ctx, source) };
}

/**
 * Parses and compiles the list parameters. Throws AppError: 500 for unparsable filter JSON (spec), 400 for any
 * other invalid input (unknown operator, bad sort direction, query syntax, unknown zone, limits).
 */
export function compileListQuery(input: ListQueryInput, ctx: QueryContext): CompiledListQuery {
  const { node, sorts } = parseListInput(input);
  const { orderBy, joins } = compileSort(sorts, ctx);
  return node.type === 'all' ? { orderBy, joins } : { where: compileNode(node, ctx), orderBy, joins };
}
