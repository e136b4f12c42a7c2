// The query tree as a set of item keys (`seq`), for documents a value index covers: a predicate on an indexed value is
// the keys of its matching index rows (plus the items the index cannot answer, read from their documents), AND is
// INTERSECT, OR is UNION, NOT is the universe (the keys the caller may read) EXCEPT the set. The cost follows the index
// rows that match, never the documents the caller may read; predicates on columns or on values the index does not
// cover are one pass over the store's items.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { QueryContext } from './query.types.js';
import type { IndexedTarget, QueryNode, ValueIndexSource, ValueTest } from './query-ast.js';
import { compileNode } from './compile.js';
import { checkedPath, documentOf, ref, table } from './sql-parts.js';
import { VALUE_FORM, VALUE_KIND } from './value-index.js';
import { assumePlain, type BoundValue, checkedSource, itemRowsAtPath, rowsAtPath, scopeOf } from './compile-indexed.js';

/** A SELECT of one column `seq`. */
export type KeySet = RawBuilder<unknown>;

export function compileSet(node: QueryNode, ctx: QueryContext, source: ValueIndexSource, universe: string): KeySet {
  const names = { n: 0 };
  return new SetCompiler(ctx, checkedSource(source), universe, names).set(node);
}

/**
 * A bare term as a condition on the item aliased `source.alias`, tested by its key alone: one probe of its words
 * (Dialect.words.matchKey) and, for a phrase, its document; items whose words the index does not (all) hold are read
 * from their document. The same items as the term's set (`SetCompiler.text`) among those tested, for a list that tests
 * its items one by one in its order (a walk) instead of reading every match: the caller must test readable items only.
 */
export function compileTextOfItem(
  node: Extract<QueryNode, { type: 'text' }>,
  ctx: QueryContext,
  source: ValueIndexSource,
): RawBuilder<SqlBool> {
  const checked = checkedSource(source);
  const { search } = node;
  const wordsTable = checked.wordsTable;
  const alias = checked.alias;
  const inDocument = ctx.dialect.query.textLike(ctx.fullText, node.pattern);
  if (!wordsTable) return inDocument;
  if (search.kind === 'words' && search.words.length === 0) return sql<SqlBool>`1 = 0`;
  // The caller's tokens, as the term's set has them (their readable items only, which are those a walk tests).
  const tokens = search.kind === 'like' ? undefined : checked.readers?.tokens;
  if (tokens !== undefined && tokens.length === 0) return sql<SqlBool>`1 = 0`;
  const key = ref(`${alias}.seq`);
  const inIndex = ctx.dialect.words.matchKey(wordsTable, search, key, tokens, checked.walkedKeys);
  const found = search.kind === 'words' && search.phrase ? sql<SqlBool>`(${inIndex} AND ${inDocument})` : inIndex;
  // Whether any item of the scope has more words than the index holds (normally none): one index probe per statement,
  // before a probe of each tested item's rows (a walk of a term in one item in five at 100,000 items: 3.0 -> 1.6 ms).
  const values = table(checked.valuesTable);
  const cutRow = sql<SqlBool>`q__v.t = ${sql.lit(VALUE_KIND.wordsCut)}`;
  const anyCut = sql<SqlBool>`((SELECT 1 FROM ${values} q__v WHERE ${rowsAtPath(checked, 'q__v', '')} AND ${cutRow} LIMIT 1) IS NOT NULL)`;
  const cut = sql<SqlBool>`(${anyCut} AND (SELECT 1 FROM ${values} q__v WHERE ${itemRowsAtPath(checked, 'q__v', key, '', false)}
      AND ${cutRow} LIMIT 1) IS NOT NULL)`;
  const notAllIndexed = assumePlain(checked) ? cut : sql<SqlBool>`(${ref(`${alias}.idx`)} <> 1 OR ${cut})`;
  return sql<SqlBool>`(${found} OR (${notAllIndexed} AND ${inDocument}))`;
}

class SetCompiler {
  constructor(
    private readonly ctx: QueryContext,
    private readonly source: ValueIndexSource,
    private readonly universe: string,
    private readonly names: { n: number },
  ) {}

  set(node: QueryNode): KeySet {
    switch (node.type) {
      case 'all':
        return sql`SELECT seq FROM ${table(this.universe)}`;
      case 'none':
        // Not from the universe: a set may stand alone (QueryContext.textMember).
        return sql`SELECT q__n.seq FROM (SELECT 1 AS seq) AS q__n WHERE 1 = 0`;
      case 'not':
        return sql`SELECT seq FROM ${table(this.universe)} EXCEPT ${this.member(this.set(node.item))}`;
      case 'and':
      case 'or': {
        // Children the index cannot answer are tested together in one pass over the items.
        const indexed = node.items.filter((n) => this.usesIndex(n));
        const others = node.items.filter((n) => !this.usesIndex(n));
        const sets = indexed.map((n) => this.set(n));
        if (others.length > 0) sets.push(this.rows({ type: node.type, items: others } as QueryNode));
        return sql.join(
          sets.map((s) => this.member(s)),
          sql` ${sql.raw(node.type === 'and' ? 'INTERSECT' : 'UNION')} `,
        );
      }
      case 'predicate': {
        const target = this.ctx.resolve(node.property);
        return target?.kind === 'indexed' ? this.indexed(target, node.tests) : this.rows(node);
      }
      case 'text':
        return this.text(node);
    }
  }

  /**
   * A bare term from the word rows of the index (path '', text-terms.ts): every word of it, a prefix range, or a
   * pattern over the store's words; a phrase is then checked in the documents of the items that have all its words.
   * Items whose words are not (all) indexed are searched in their document text.
   */
  private text(node: Extract<QueryNode, { type: 'text' }>): KeySet {
    const { search } = node;
    const values = table(this.source.valuesTable);
    const items = table(this.source.itemsTable);
    const alias = this.source.alias;
    const wordsTable = this.source.wordsTable;
    if (!wordsTable) return this.rows(node);
    if (search.kind === 'words' && search.words.length === 0) return this.set({ type: 'none' });
    // With the caller's tokens, the index itself keeps the readable items of this store (the tokens are the store's);
    // without, keys of any store (the engine's full-text index is not partitioned), which the access
    // probe below narrows to this store's readable ones.
    const tokens = search.kind === 'like' ? undefined : this.source.readers?.tokens;
    let found: KeySet =
      tokens === undefined
        ? this.ctx.dialect.words.match(wordsTable, search)
        : tokens.length > 0
          ? this.ctx.dialect.words.match(wordsTable, search, tokens)
          : this.set({ type: 'none' });
    if (search.kind === 'words' && search.phrase) {
      found = sql`SELECT ${ref(`${alias}.seq`)} AS seq FROM ${items} AS ${sql.id(alias)} WHERE ${ref(`${alias}.seq`)} IN (${found})
        AND ${this.ctx.dialect.query.textLike(this.ctx.fullText, node.pattern)}`;
    }
    const inDocument = sql<SqlBool>`${this.ctx.dialect.query.textLike(this.ctx.fullText, node.pattern)} AND ${this.mayRead(ref(`${alias}.seq`))}`;
    if (this.source.readers && tokens === undefined)
      found = sql`SELECT q__w.seq FROM (${found}) AS q__w WHERE ${this.mayRead(ref('q__w.seq'))}`;
    // Three disjoint parts, so no deduplication of the (many) index matches: those; the unindexed items (idx <> 1) and
    // the items with more words than the index holds (idx = 1), each read from its document and kept only when the
    // index did not find it already (that list is computed only if such an item matches its document).
    const seq = ref(`${alias}.seq`);
    const notFound = sql<SqlBool>`${seq} NOT IN (SELECT q__f.seq FROM (${found}) AS q__f)`;
    const unindexed = assumePlain(this.source)
      ? sql``
      : sql`UNION ALL SELECT ${seq} AS seq FROM ${items} AS ${sql.id(alias)} WHERE ${scopeOf(this.source, alias)} AND ${ref(`${alias}.idx`)} <> 1 AND ${inDocument} AND ${notFound}`;
    return sql`${this.member(found)}
      ${unindexed}
      UNION ALL SELECT ${seq} AS seq FROM ${items} AS ${sql.id(alias)} WHERE ${seq} IN (
        SELECT q__v.item_seq FROM ${values} q__v WHERE ${rowsAtPath(this.source, 'q__v', '')} AND q__v.t = ${sql.lit(VALUE_KIND.wordsCut)})
        AND ${ref(`${alias}.idx`)} = 1 AND ${inDocument} AND ${notFound}`;
  }

  private usesIndex(node: QueryNode): boolean {
    switch (node.type) {
      case 'predicate':
        return this.ctx.resolve(node.property)?.kind === 'indexed';
      case 'and':
      case 'or':
        return node.items.some((n) => this.usesIndex(n));
      case 'not':
        return this.usesIndex(node.item);
      case 'text':
        return true;
      default:
        return false;
    }
  }

  /** A set as a member of a compound SELECT (both engines accept a subquery there; SQLite no parentheses). */
  private member(set: KeySet): RawBuilder<unknown> {
    return sql`SELECT seq FROM (${set}) AS ${sql.id(`q__k${this.names.n++}`)}`;
  }

  /** Items of the store whose row passes the (row-form) predicate: columns, unindexed values, text. */
  private rows(node: QueryNode): KeySet {
    const alias = this.source.alias;
    return sql`SELECT ${ref(`${alias}.seq`)} AS seq FROM ${table(this.source.itemsTable)} AS ${sql.id(alias)}
      WHERE ${scopeOf(this.source, alias)} AND ${compileNode(node, this.ctx)} AND ${this.mayRead(ref(`${alias}.seq`))}`;
  }

  /**
   * Whether the path has ever held a value of one of the forms (VALUE_FORM bits), where the keys table keeps them: a
   * condition on no row of the part it guards, which both engines evaluate once, before the part's scan.
   */
  private held(path: string, forms: number): RawBuilder<SqlBool> {
    const keys = this.source.keysTable;
    if (!keys || !this.source.keyForms) return sql<SqlBool>`1 = 1`;
    return sql<SqlBool>`EXISTS (SELECT 1 FROM ${table(keys)} q__f WHERE ${scopeOf(this.source, 'q__f')} AND q__f.path = ${path} AND (q__f.forms & ${sql.lit(forms)}) <> 0)`;
  }

  /** Whether the caller may read the item `key`, where the source says who may (else every key passes). */
  private mayRead(key: RawBuilder<unknown>): RawBuilder<SqlBool> {
    return this.source.readers ? this.source.readers.mayRead(key) : sql<SqlBool>`1 = 1`;
  }

  /**
   * The readable items with a value row at the path that passes `test` (rows aliased `q__v`; `rows`: the path's rows of
   * the caller's reader sets). The lookup index orders a value's rows by item, so a caller who may read few of the
   * store's items would read every row of the value to find its own: where the source says so (`readers.few`), each of
   * its items' rows at the path is probed instead, by key.
   */
  private readableRows(path: string, rows: RawBuilder<SqlBool>, test: RawBuilder<SqlBool>): KeySet {
    const values = table(this.source.valuesTable);
    const few = this.source.readers?.few;
    if (!few) return sql`SELECT q__v.item_seq AS seq FROM ${values} q__v WHERE ${rows} AND ${test}`;
    return sql`SELECT q__y.seq AS seq FROM (${few.keys}) AS q__y WHERE EXISTS (
      SELECT 1 FROM ${values} q__v WHERE ${itemRowsAtPath(this.source, 'q__v', ref('q__y.seq'), path, false)} AND ${test})`;
  }

  private indexed(target: IndexedTarget, tests: ValueTest[]): KeySet {
    const query = this.ctx.dialect.query;
    const generic = this.ctx.genericValues === true;
    const exact = query.indexTests('q__v', tests, generic);
    if (!exact) return this.set({ type: 'none' });
    const path = checkedPath(target.path).join('.');
    const values = table(this.source.valuesTable);
    const items = table(this.source.itemsTable);
    const doc = query.jsonAny(documentOf(this.source, 'q__d'), target.path, tests);
    const bound: BoundValue | undefined = generic ? (value) => query.genericValue(value, 'text') : undefined;
    const scoped = (alias: string): RawBuilder<SqlBool> => scopeOf(this.source, alias, bound);
    const atPath = (alias: string): RawBuilder<SqlBool> => rowsAtPath(this.source, alias, path, bound);
    const readers = this.source.readers;
    const plain = assumePlain(this.source, path);
    if (readers) {
      // Each readable match once: the rows of values at the path itself (one per item; a long string there is read
      // from its document below); then those of array elements (an item may have several) with the long strings at the
      // path, read from their documents, without repeats; then the items without index rows (written before the index,
      // or beyond its caps), read from their documents.
      // The reader set is a condition on each row of the value's range (`rs + 0`, never an index condition: rs comes
      // last in the lookup index, after the item): PostgreSQL, planning `rs IN` as a loop over the sets, read the whole
      // range once per set (a price range of 50,000 rows and 25 sets, 64 ms -> one read). The sets are computed once
      // (PostgreSQL: an array): as `rs IN (subquery)`, PostgreSQL with fresh statistics joined the sets to each
      // matching row, reading the store's grantee rows once per row (value.owner, 1,000 rows at 100,000 items: 20 ms,
      // 1.6 ms with the array).
      const readable = this.ctx.dialect.inSubquery(sql`(q__v.rs + 0)`, readers.sets);
      const rows = sql<SqlBool>`${atPath('q__v')} AND ${readable}`;
      if (plain) return this.readableRows(path, rows, sql<SqlBool>`${exact} AND q__v.elem = 0`);
      const elements = sql`SELECT q__v.item_seq AS seq FROM ${values} q__v WHERE ${this.held(path, VALUE_FORM.array)} AND ${rows} AND ${exact} AND q__v.elem = 1
        UNION
        SELECT q__d.seq AS seq FROM ${items} q__d WHERE ${this.held(path, VALUE_FORM.array | VALUE_FORM.longString)} AND q__d.seq IN (
          SELECT q__v.item_seq FROM ${values} q__v WHERE ${rows} AND q__v.t = ${sql.lit(VALUE_KIND.longString)}) AND ${doc}`;
      return sql`${this.readableRows(path, rows, sql<SqlBool>`${exact} AND q__v.elem = 0 AND q__v.t <> ${sql.lit(VALUE_KIND.longString)}`)}
        UNION ALL
        ${this.member(elements)}
        UNION ALL
        SELECT q__d.seq AS seq FROM ${items} q__d WHERE ${scoped('q__d')} AND q__d.idx <> 1 AND ${doc} AND ${this.mayRead(ref('q__d.seq'))}`;
    }
    // Index rows that pass; long strings at the path, read from their documents; items without index rows (written
    // before the index, or beyond its caps), read from their documents (a partial index keeps them at hand).
    if (plain) return sql`SELECT q__v.item_seq AS seq FROM ${values} q__v WHERE ${atPath('q__v')} AND ${exact}`;
    return sql`SELECT q__v.item_seq AS seq FROM ${values} q__v WHERE ${atPath('q__v')} AND ${exact}
      UNION ALL
      SELECT q__d.seq AS seq FROM ${items} q__d WHERE q__d.seq IN (
        SELECT q__v.item_seq FROM ${values} q__v WHERE ${atPath('q__v')} AND q__v.t = ${sql.lit(VALUE_KIND.longString)}) AND ${doc}
      UNION ALL
      SELECT q__d.seq AS seq FROM ${items} q__d WHERE ${scoped('q__d')} AND q__d.idx <> 1 AND ${doc}`;
  }
}
