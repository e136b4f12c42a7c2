/** Limits against abuse of the list parameters; documented in docs/api/query.md. */
export const QUERY_LIMITS = {
  /** Characters of the `query` string. */
  queryLength: 4096,
  /** Terms, phrases, ranges and operators of the `query` string. */
  queryTokens: 64,
  /** Nesting depth of parentheses in the `query` string. */
  queryDepth: 4,
  /** Characters of the `filter` parameter when sent as a string. */
  filterLength: 65_536,
  /** Conditions of one filter array. */
  filterConditions: 100,
  /** Elements of all `in` values of one filter together. */
  inValues: 1000,
  /** Characters of one string value (filter value, query term). */
  valueLength: 1024,
  /** Wildcards (`*`, `?`) in one pattern; consecutive `*` count once. */
  wildcards: 16,
  /** Characters of a property path. */
  propertyLength: 256,
  /** Segments of a property path. */
  propertySegments: 16,
  /** Characters of the `sort` parameter when sent as a string. */
  sortLength: 2048,
  /** Sort instructions. */
  sortFields: 10,
} as const;
