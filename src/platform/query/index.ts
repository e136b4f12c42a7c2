// The list-query compiler: `query` (Lucene syntax), `filter` (JSON conditions), `sort` and the time zone of a list
// read, parsed purely and compiled to Kysely SQL fragments. Used by storage and the engine's data management API.
import type { CompiledListQuery, ListQueryInput, QueryContext } from './query.types.js';
import { and } from './query-ast.js';
import { compileNode, compileSort } from './compile.js';
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
export type { QueryNode, ValueTest, ValueIndexSource } from './query-ast.js';
export type { SortJoin } from './compile-indexed.js';
export { documentIndex, VALUE_INDEX_LIMITS, VALUE_KIND, type DocumentIndex, type ValueIndexRow } from './value-index.js';
export { parseFilter, filterToNode, type NormalizedCondition } from './parse-filter.js';
export { parseSort } from './parse-sort.js';
export { parseQueryString } from './parse-query-string.js';
export { resolveZone, parseDateValue, type Zone } from './timezone.js';
export { QUERY_LIMITS } from './limits.js';

/**
 * Parses and compiles the list parameters. Throws AppError: 500 for unparsable filter JSON (spec), 400 for any
 * other invalid input (unknown operator, bad sort direction, query syntax, unknown zone, limits).
 */
export function compileListQuery(input: ListQueryInput, ctx: QueryContext): CompiledListQuery {
  const zone = resolveZone(input.timezoneName, input.timezoneOffset);
  const filter = filterToNode(parseFilter(input.filter), zone);
  const query = parseQueryString(input.query, zone);
  const node = and([query, filter]);
  const { orderBy, joins } = compileSort(parseSort(input.sort), ctx);
  return node.type === 'all' ? { orderBy, joins } : { where: compileNode(node, ctx), orderBy, joins };
}
