// The tree of query and filter as SQL: predicates go through the resolver to a JSON path or a column, and the
// dialect writes the engine's SQL. Every compiled predicate is TRUE or FALSE, never NULL, so NOT is exact.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { QueryContext, SortInstruction } from './query.types.js';
import type { QueryNode } from './query-ast.js';
import { allOf, anyOf, FALSE, TRUE } from './sql-parts.js';
import { indexedAny, indexedSort, type SortJoin } from './compile-indexed.js';

export function compileNode(node: QueryNode, ctx: QueryContext): RawBuilder<SqlBool> {
  switch (node.type) {
    case 'all':
      return TRUE;
    case 'none':
      return FALSE;
    case 'and':
      return allOf(node.items.map((n) => compileNode(n, ctx)));
    case 'or':
      return anyOf(node.items.map((n) => compileNode(n, ctx)));
    case 'not':
      return sql<SqlBool>`(NOT ${compileNode(node.item, ctx)})`;
    case 'text':
      return ctx.textMember ? ctx.textMember(node) : ctx.dialect.query.textLike(ctx.fullText, node.pattern);
    case 'predicate': {
      const target = ctx.resolve(node.property);
      // An unknown property has no value: the predicate is false, its negation true.
      if (!target) return FALSE;
      switch (target.kind) {
        case 'json':
          return ctx.dialect.query.jsonAny(target, target.path, node.tests);
        case 'indexed':
          return indexedAny(target, node.tests, ctx.dialect, ctx.indexMembership);
        case 'column':
          return ctx.dialect.query.columnAny(target.column, target.type, node.tests);
      }
    }
  }
}

/**
 * ORDER BY items of the instructions, with the joins they need; a property the resolver does not know sorts as
 * missing everywhere (no item).
 */
export function compileSort(
  sorts: SortInstruction[],
  ctx: QueryContext,
): { orderBy: RawBuilder<unknown>[]; joins: SortJoin[] } {
  const orderBy: RawBuilder<unknown>[] = [];
  const joins: SortJoin[] = [];
  for (const s of sorts) {
    const target = ctx.resolve(s.property);
    if (!target) continue;
    if (target.kind === 'indexed') {
      const sorted = indexedSort(target, s.direction, joins.length, ctx.dialect);
      joins.push(sorted.join);
      orderBy.push(...sorted.orderBy);
    } else {
      orderBy.push(...ctx.dialect.query.orderBy(target, s.direction));
    }
  }
  return { orderBy, joins };
}
