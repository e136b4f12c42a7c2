// The total of a list from kept counts (ValueIndexSource.counts): for one predicate on one indexed path, compiled for
// plain values, the number of readable items whose value passes is the sum of the counts of the passing values over
// the caller's reader sets. Its cost follows the distinct values that pass (times the reader sets and shards), not
// the items that match.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { QueryContext } from './query.types.js';
import type { QueryNode, ValueIndexSource } from './query-ast.js';
import { assumePlain, checkedSource, pathKey, rowsAtPath, scopeOf } from './compile-indexed.js';
import { allOf, checkedPath, ref, table } from './sql-parts.js';
import { VALUE_KIND } from './value-index.js';

/**
 * The kept total of `node` as a scalar subquery, or undefined where the counts cannot give it (another shape than one
 * predicate, or an AND of predicates, on one indexed path, no counts table, no reader sets, or not compiled for plain values). Exact under the
 * plain assumption (which the statements check, plainCheck): every item is indexed and the path never held an array
 * or a long string, so each item has at most one counted row at the path, the one the set's test reads.
 */
export function keptTotal(
  node: QueryNode,
  ctx: QueryContext,
  source: ValueIndexSource,
): RawBuilder<unknown> | undefined {
  if (node.type === 'text') return keptTermTotal(node, ctx, source);
  const { counts, keysTable, readers } = source;
  if (!counts || !keysTable || !readers || !source.plain) return undefined;
  // One predicate, or predicates on one path ANDed (a filter's two bounds of a range): with one value per item at
  // the path, an item passes them all where its value does.
  const predicates = node.type === 'and' ? node.items : [node];
  const first = predicates[0];
  if (first?.type !== 'predicate') return undefined;
  if (!predicates.every((p) => p.type === 'predicate' && p.property === first.property)) return undefined;
  const target = ctx.resolve(first.property);
  if (target?.kind !== 'indexed' || target.source !== source) return undefined;
  const checked = checkedSource(source);
  const path = checkedPath(target.path).join('.');
  if (!assumePlain(checked, path)) return undefined;
  const tests: RawBuilder<SqlBool>[] = [];
  for (const p of predicates as Array<Extract<QueryNode, { type: 'predicate' }>>) {
    const exact = ctx.dialect.query.indexTests('q__c', p.tests);
    if (!exact) return sql`0`;
    tests.push(exact);
  }
  const sets = ctx.dialect.inSubquery(ref('q__c.rs'), readers.sets);
  return sql`(SELECT coalesce(sum(q__c.n), 0) FROM ${table(counts)} q__c
    WHERE q__c.vk = ${pathKey(checked, keysTable, path)} AND ${allOf(tests)} AND ${sets})`;
}

/**
 * The kept total of a bare term that is one whole word (not a prefix, a pattern or a phrase: those are counted), as a
 * scalar subquery: the sum of the word's counts over the caller's reader sets (every readable item whose words row
 * has the word), plus the readable items with more words than their row holds (a `wordsCut` row; normally none) whose
 * document has the term and whose row does not. Exact where every item is indexed (plain: the statements check it).
 */
function keptTermTotal(
  node: Extract<QueryNode, { type: 'text' }>,
  ctx: QueryContext,
  source: ValueIndexSource,
): RawBuilder<unknown> | undefined {
  const { termCounts, wordsTable, readers } = source;
  const { search } = node;
  if (!termCounts || !wordsTable || !readers || !source.plain) return undefined;
  if (search.kind !== 'words' || search.words.length !== 1) return undefined;
  const checked = checkedSource(source);
  assumePlain(checked);
  const alias = checked.alias;
  const seq = ref(`${alias}.seq`);
  const word = search.words[0];
  const sets = ctx.dialect.inSubquery(ref('q__t.rs'), readers.sets);
  const inIndex = ctx.dialect.words.matchKey(wordsTable, search, seq);
  const cut = sql`(SELECT count(*) FROM ${table(checked.itemsTable)} AS ${sql.id(alias)} WHERE ${seq} IN (
      SELECT q__v.item_seq FROM ${table(checked.valuesTable)} q__v WHERE ${rowsAtPath(checked, 'q__v', '')} AND q__v.t = ${sql.lit(VALUE_KIND.wordsCut)})
    AND ${scopeOf(checked, alias)} AND ${ctx.dialect.query.textLike(ctx.fullText, node.pattern)} AND ${readers.mayRead(seq)}
    AND NOT ${inIndex})`;
  return sql`((SELECT coalesce(sum(q__t.n), 0) FROM ${table(termCounts)} q__t WHERE q__t.term = ${word} AND ${sets}) + ${cut})`;
}
