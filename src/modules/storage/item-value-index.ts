// The value index and full-text words of store items (platform/query/value-index.ts; docs/api/storage.md "Value index
// and full-text search"): which rows a document has, and their SQL, in the item's write transaction.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import type { PreparedQueries } from '../../platform/db/prepared-query.js';
import { forTenant } from '../../platform/db/tenant-scope.js';
import { documentIndex, type DocumentIndex } from '../../platform/query/index.js';
import { INDEXED_FIELDS, type ItemDocument } from './item-document.js';
import type { StorageTables } from './storage.tables.js';

type Db = Kysely<StorageTables>;
/** The tenant and store of an item (the repository's ItemKey has them). */
interface ItemScope {
  tenantId: string;
  storeId: string;
}

/** The full-text index of the items' words (Dialect.words). */
const WORDS_TABLE = 'storage_item_words';
/** Value index rows written by one statement (5 bound values each; both engines allow thousands per statement). */
const VALUE_ROWS_PER_STATEMENT = 100;

export class ItemValueIndex {
  /** The value index rows of a document, computed once per document written. */
  private readonly indexes = new WeakMap<ItemDocument, DocumentIndex>();

  constructor(
    private readonly dialect: Dialect,
    private readonly statements: PreparedQueries,
  ) {}

  /** The value index rows of the document (platform/query/value-index.ts), over the fields a query can name. */
  of(doc: ItemDocument): DocumentIndex {
    let index = this.indexes.get(doc);
    if (!index) {
      index = documentIndex(doc as unknown as Record<string, unknown>, INDEXED_FIELDS);
      this.indexes.set(doc, index);
    }
    return index;
  }

  /** storage_items.idx of the document: 1 when its rows are in the value index, 2 when it exceeds the index's caps. */
  flag(doc: ItemDocument): number {
    return this.of(doc).complete ? 1 : 2;
  }

  /** The value rows of a document as `jsonRecords` objects. */
  records(doc: ItemDocument): Array<{ p: string; t: number; e: number; n: number | null; s: string | null }> {
    return this.of(doc).rows.map(([p, t, e, n, s]) => ({ p, t, e, n, s }));
  }

  /** Writes the value rows and words of the item (its key `seq`). */
  async write(trx: Db, key: ItemScope, seq: number, doc: ItemDocument): Promise<void> {
    const { rows, words } = this.of(doc);
    if (words.length > 0) await this.dialect.words.insert(WORDS_TABLE, seq, words).execute(trx);
    // Bound values, one statement per row count (prepared once each): several times cheaper than a JSON parameter
    // taken apart in SQL, and writes of items are the hot path.
    for (let i = 0; i < rows.length; i += VALUE_ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + VALUE_ROWS_PER_STATEMENT);
      await this.statements.run(
        trx,
        `insert-values:${chunk.length}`,
        (p) =>
          trx.insertInto('storage_item_values').values(
            chunk.map((_, n) => ({
              tenant_id: p(0),
              store_id: p(1),
              item_seq: p(2),
              path: p(3 + 5 * n),
              t: p(4 + 5 * n),
              elem: p(5 + 5 * n),
              num: p(6 + 5 * n),
              str: p(7 + 5 * n),
            })),
          ),
        [key.tenantId, key.storeId, seq, ...chunk.flat()],
      );
    }
  }

  /** Removes the value rows and words of the item. */
  async remove(trx: Db, key: ItemScope, seq: number): Promise<void> {
    await forTenant(trx, key.tenantId).deleteFrom('storage_item_values').where('store_id', '=', key.storeId).where('item_seq', '=', seq).execute();
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
      .where('seq', 'in', pending.map((r) => Number(r.seq)))
      .where('idx', '=', 0)
      .returning(['seq', 'tenant_id', 'store_id', 'doc'])
      .execute();
    // Rows an interrupted run may have left (none normally): replaced, not added to.
    const seqs = rows.map((r) => Number(r.seq));
    if (seqs.length > 0) await trx.deleteFrom('storage_item_values').where('item_seq', 'in', seqs).execute();
    for (const seq of seqs) await this.dialect.words.remove(WORDS_TABLE, seq).execute(trx);
    const complete: number[] = [];
    const beyondCaps: number[] = [];
    const values: Array<{ q: number; t0: string; s0: string; p: string; t: number; e: number; n: number | null; s: string | null }> = [];
    for (const row of rows) {
      const doc = this.dialect.fromJson<ItemDocument>(row.doc);
      const seq = Number(row.seq);
      const index = this.of(doc);
      (index.complete ? complete : beyondCaps).push(seq);
      for (const v of this.records(doc)) values.push({ q: seq, t0: row.tenant_id, s0: row.store_id, ...v });
      if (index.words.length > 0) await this.dialect.words.insert(WORDS_TABLE, seq, index.words).execute(trx);
    }
    for (let i = 0; i < values.length; i += 5000) {
      await trx
        .insertInto('storage_item_values')
        .columns(['tenant_id', 'store_id', 'item_seq', 'path', 't', 'elem', 'num', 'str'])
        .expression(
          trx
            .selectFrom(
              this.dialect.jsonRecords(JSON.stringify(values.slice(i, i + 5000)), { t0: 'text', s0: 'text', q: 'bigint', p: 'text', t: 'integer', e: 'integer', n: 'double', s: 'text' }).as('r'),
            )
            .select(['r.t0', 'r.s0', 'r.q', 'r.p', 'r.t', 'r.e', 'r.n', 'r.s'] as any),
        )
        .execute();
    }
    if (complete.length > 0) await trx.updateTable('storage_items').set({ idx: 1 }).where('seq', 'in', complete).execute();
    if (beyondCaps.length > 0) await trx.updateTable('storage_items').set({ idx: 2 }).where('seq', 'in', beyondCaps).execute();
    return pending.length;
  }
}
