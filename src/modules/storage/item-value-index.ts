// The value index and full-text words of store items (platform/query/value-index.ts; docs/api/storage.md "Value index
// and full-text search"): which rows a document has, and their SQL, in the item's write transaction.
import { sql, type Kysely } from 'kysely';
import type { Dialect, WordRow } from '../../platform/db/dialects/dialect.js';
import type { PreparedQueries } from '../../platform/db/prepared-query.js';
import { documentIndex, RESERVED_TOKEN_MARK, type DocumentIndex } from '../../platform/query/index.js';
import { INDEXED_FIELDS, type ItemDocument } from './item-document.js';
import { ItemIndexKeys, keyOf, type PreparedKeys } from './item-index-keys.js';
import type { CommittedRun, ItemScope } from './store-keys.js';
import type { StorageTables } from './storage.tables.js';
import type { StorageSql } from './dialects/index.js';
import { ItemTermCounts, type CountedWords } from './item-term-counts.js';

export type { PreparedKeys } from './item-index-keys.js';

type Db = Kysely<StorageTables>;

/** The full-text index of the items' words (Dialect.words). */
const WORDS_TABLE = 'storage_item_words';
/** Value index rows written by one statement (7 bound values each; both engines allow thousands). */
const VALUE_ROWS_PER_STATEMENT = 100;
/** Items whose inserted value rows one counting statement takes (StorageSql.countInsertedValues): a batch of creates. */
const COUNTED_ITEMS_PER_STATEMENT = 64;
/** The columns of a value index row, in the order writeMany lists their values. */
const VALUE_COLUMNS = ['vk', 'item_seq', 'rs', 't', 'elem', 'num', 'str'] as const;
/** Items whose words one statement writes. */
const WORD_ROWS_PER_STATEMENT = 100;

/** An item whose value rows and words are to be written (ItemValueIndex.writeMany), with its prepared keys. */
export interface IndexedItem {
  scope: ItemScope;
  seq: number;
  doc: ItemDocument;
  prepared: PreparedKeys;
}

export class ItemValueIndex {
  /** The value index rows of a document, computed once per document written. */
  private readonly indexes = new WeakMap<ItemDocument, DocumentIndex>();
  /** The keys of the documents' paths and reader sets (item-index-keys.ts). */
  private readonly keys = new ItemIndexKeys((doc) => this.of(doc));
  /** wordsAndTokensJson's text of a reader set's tokens, by readTokens' (kept) answer. */
  private readonly tokensJson = new WeakMap<readonly string[], string>();
  /** Kept counts of the words (storage_term_counts), in the transaction of every write of words. */
  private readonly termCounts: ItemTermCounts;

  constructor(
    private readonly dialect: Dialect,
    private readonly statements: PreparedQueries,
    private readonly storageSql: StorageSql,
  ) {
    this.termCounts = new ItemTermCounts(storageSql, statements);
  }

  /** The value index rows of the document (platform/query/value-index.ts), over the fields a query can name. */
  of(doc: ItemDocument): DocumentIndex {
    let index = this.indexes.get(doc);
    if (!index) {
      index = documentIndex(doc as unknown as Record<string, unknown>, INDEXED_FIELDS, { forms: true });
      this.indexes.set(doc, index);
    }
    return index;
  }

  /** storage_items.idx of the document: 1 when its rows are in the value index, 2 when it exceeds the index's caps. */
  flag(doc: ItemDocument): number {
    return this.of(doc).complete ? 1 : 2;
  }

  /**
   * Makes sure the keys of the documents' paths and their reader sets exist in the store, committed by `run`, and
   * remembers them: writes then find every key in memory (item-index-keys.ts).
   */
  prepare(run: CommittedRun, scope: ItemScope, docs: ItemDocument[]): Promise<PreparedKeys> {
    return this.keys.prepare(run, scope, docs);
  }

  /**
   * The entries of the document in the words index (Dialect.words) as one JSON list: its words and, when it has any,
   * the tokens of the grantees who may read it (`grantTokens`), which let a bare term find only readable items. The
   * tokens' mark (U+E000) is escaped: unescaped, it made a batch of creates' parameter (PostgreSQL's one statement,
   * some 60 KB) a two-byte string, built, joined and encoded at twice the size.
   */
  wordsAndTokensJson(scope: ItemScope, doc: ItemDocument): string {
    const { words } = this.of(doc);
    if (words.length === 0) return '[]';
    const tokens = this.keys.readTokens(scope, doc);
    if (tokens.length === 0) return JSON.stringify(words);
    let tokensJson = this.tokensJson.get(tokens);
    if (tokensJson === undefined) {
      tokensJson = JSON.stringify(tokens).replaceAll(RESERVED_TOKEN_MARK, '\\ue000');
      this.tokensJson.set(tokens, tokensJson);
    }
    return `${JSON.stringify(words).slice(0, -1)},${tokensJson.slice(1)}`;
  }

  /** The reader set of the document (its `rs`), from `prepare`. */
  readerSet(doc: ItemDocument, prepared: PreparedKeys): number {
    return this.keys.readerSet(doc, prepared);
  }

  /** The reader set of the document (its item row's `rs`): from memory (`prepare`), else in the caller's transaction. */
  readerSetIn(trx: Db, scope: ItemScope, doc: ItemDocument): Promise<number> {
    return this.keys.readerSetIn(trx, scope, doc);
  }

  /** The value rows of a document as `jsonRecords` objects, with the keys of their paths (from `prepare`). */
  records(
    doc: ItemDocument,
    prepared: PreparedKeys,
  ): Array<{ k: number; t: number; e: number; n: number | null; s: string | null }> {
    return this.of(doc).rows.map(([p, t, e, n, s]) => ({ k: keyOf(prepared, p), t, e, n, s }));
  }

  /** Writes the value rows and words of the item (its key `seq`). */
  async write(trx: Db, key: ItemScope, seq: number, doc: ItemDocument): Promise<void> {
    const { rows, words } = this.of(doc);
    if (rows.length === 0 && words.length === 0) return;
    await this.writeMany(trx, [{ scope: key, seq, doc, prepared: await this.keys.keysOf(trx, key, doc) }]);
  }

  /**
   * Writes the value rows and words of items whose keys are prepared (`prepare`), all of them in a few statements: the
   * creates of a batch (store-item-creates.ts) pay for their statements once, not once each.
   */
  async writeMany(trx: Db, items: readonly IndexedItem[]): Promise<void> {
    const words: WordRow[] = [];
    const counted: CountedWords[] = [];
    const values: unknown[] = [];
    const valued: number[] = [];
    for (const { scope, seq, doc, prepared } of items) {
      const index = this.of(doc);
      if (index.words.length === 0 && index.rows.length === 0) continue;
      const rs = this.readerSet(doc, prepared);
      if (index.words.length > 0) {
        words.push({ seq, words: index.words, tokens: this.keys.readTokens(scope, doc) });
        counted.push({ rs, words: index.words });
      }
      if (index.rows.length === 0) continue;
      valued.push(seq);
      // Flat, not as `records`' objects: every create passes here (an object per row: 4-7% fewer creates in process).
      for (const [path, t, e, n, s] of index.rows) values.push(keyOf(prepared, path), seq, rs, t, e, n, s);
    }
    for (let i = 0; i < words.length; i += WORD_ROWS_PER_STATEMENT) {
      await this.dialect.words.insert(WORDS_TABLE, words.slice(i, i + WORD_ROWS_PER_STATEMENT)).execute(trx);
    }
    await this.termCounts.add(trx, counted);
    await this.statements.insertRows(
      trx,
      'insert-value-rows',
      'storage_item_values',
      VALUE_COLUMNS,
      values,
      VALUE_ROWS_PER_STATEMENT,
    );
    await this.countInserted(trx, valued);
  }

  /**
   * Adds the value rows just inserted for the items `seqs` to the kept counts, where the engine counts inserts by
   * statement (StorageSql.countInsertedValues; elsewhere a trigger has counted them). A statement per up to
   * COUNTED_ITEMS_PER_STATEMENT items, prepared per item count.
   */
  private async countInserted(trx: Db, seqs: readonly number[]): Promise<void> {
    const statement = this.storageSql.countInsertedValues;
    if (!statement) return;
    for (let at = 0; at < seqs.length; at += COUNTED_ITEMS_PER_STATEMENT) {
      const chunk = seqs.slice(at, at + COUNTED_ITEMS_PER_STATEMENT);
      await this.statements.run(
        trx,
        `count-inserted-values:${chunk.length}`,
        (p) => {
          const built = statement(chunk.map((_, n) => p(n)));
          return { compile: () => built.compile(trx) };
        },
        chunk,
      );
    }
  }

  /** Removes the value rows and words of the item (its key is unique across tenants and stores). */
  async remove(trx: Db, seq: number): Promise<void> {
    await trx.deleteFrom('storage_item_values').where('item_seq', '=', seq).execute();
    await this.removeWords(trx, seq);
  }

  /**
   * Removes the item's words row, taken out of the kept counts under the item's reader set as its row has it: before
   * that changes (an update of the row, StoreItemRepository.update), or the counts would lose it under the new one.
   */
  async removeWords(trx: Db, seq: number): Promise<void> {
    await this.termCounts.forget(trx, seq);
    await this.dialect.words.remove(WORDS_TABLE, seq).execute(trx);
  }

  /**
   * Puts up to `limit` items that are not in the value index yet (written before it existed: idx 0) into it, in one
   * transaction; answers how many it looked at. Each row is locked and read again first (a no-op update that still
   * requires idx 0), so an item updated meanwhile, which indexed itself, is left alone.
   */
  async indexPending(trx: Db, limit: number): Promise<number> {
    const pending = await trx
      .selectFrom('storage_items')
      .select('seq')
      .where('idx', '<>', 1)
      .where('idx', '=', 0)
      .orderBy('seq')
      .limit(limit)
      .execute();
    if (pending.length === 0) return 0;
    const rows = await trx
      .updateTable('storage_items')
      .set({ idx: sql`idx` })
      .where(
        'seq',
        'in',
        pending.map((r) => Number(r.seq)),
      )
      .where('idx', '=', 0)
      .returning(['seq', 'tenant_id', 'store_id', 'doc'])
      .execute();
    // Rows an interrupted run may have left (none normally): replaced, not added to.
    const seqs = rows.map((r) => Number(r.seq));
    if (seqs.length > 0) await trx.deleteFrom('storage_item_values').where('item_seq', 'in', seqs).execute();
    for (const seq of seqs) await this.removeWords(trx, seq);
    // The items' new idx and reader set, grouped so that each pair is one update.
    const flagged = new Map<string, { idx: number; rs: number; seqs: number[] }>();
    const values: Array<{ q: number; r: number; k: number; t: number; e: number; n: number | null; s: string | null }> =
      [];
    const counted: CountedWords[] = [];
    for (const row of rows) {
      const doc = this.dialect.fromJson<ItemDocument>(row.doc);
      const seq = Number(row.seq);
      const index = this.of(doc);
      const prepared = await this.keys.keysOf(trx, { tenantId: row.tenant_id, storeId: row.store_id }, doc);
      const r = this.readerSet(doc, prepared);
      const idx = index.complete ? 1 : 2;
      const group = flagged.get(`${idx} ${r}`) ?? { idx, rs: r, seqs: [] };
      flagged.set(`${idx} ${r}`, group);
      group.seqs.push(seq);
      for (const v of this.records(doc, prepared)) values.push({ q: seq, r, ...v });
      const scope = { tenantId: row.tenant_id, storeId: row.store_id };
      if (index.words.length > 0) {
        await this.dialect.words
          .insert(WORDS_TABLE, [{ seq, words: index.words, tokens: this.keys.readTokens(scope, doc) }])
          .execute(trx);
        counted.push({ rs: r, words: index.words });
      }
    }
    await this.termCounts.add(trx, counted);
    for (let i = 0; i < values.length; i += 5000) {
      await trx
        .insertInto('storage_item_values')
        .columns(['vk', 'item_seq', 'rs', 't', 'elem', 'num', 'str'])
        .expression(
          trx
            .selectFrom(
              this.dialect
                .jsonRecords(JSON.stringify(values.slice(i, i + 5000)), {
                  k: 'bigint',
                  q: 'bigint',
                  r: 'bigint',
                  t: 'integer',
                  e: 'integer',
                  n: 'double',
                  s: 'text',
                })
                .as('r'),
            )
            .select(['r.k', 'r.q', 'r.r', 'r.t', 'r.e', 'r.n', 'r.s'] as any),
        )
        .execute();
    }
    await this.countInserted(trx, [...new Set(values.map((v) => v.q))]);
    for (const { idx, rs, seqs: flaggedSeqs } of flagged.values()) {
      await trx.updateTable('storage_items').set({ idx, rs }).where('seq', 'in', flaggedSeqs).execute();
    }
    return pending.length;
  }
}
