// Reading pages of a store's items: the items the caller may read that a compiled query selects, in its order, with
// their total, and the page's documents as JSON text.
import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { forTenant } from '../../platform/db/tenant-scope.js';
import type { SortJoin } from '../../platform/query/index.js';
import type { StorageTables } from './storage.tables.js';

type Db = Kysely<StorageTables>;

/** An item row with its document as JSON text, for the read that answers it without parsing it. */
export interface ItemText {
  docText: string;
  createdOn: number;
  createdBy: string;
  updatedOn: number;
  updatedBy: string;
}

/** A list query over the value index (platform/query compileListQuerySets). */
export interface CompiledItemQuery {
  set?: RawBuilder<unknown>;
  orderBy: RawBuilder<unknown>[];
  joins: SortJoin[];
  needsItemRow: boolean;
}

/** A list's store and caller. */
export interface StoreScope {
  tenantId: string;
  storeId: string;
  /** The caller's grantees (item-document.ts principalGrantees): whom the list may show items to. */
  grantees: string[];
}

export interface ListPage {
  total: number;
  records: ItemText[];
}

/** SQL of list reads: every statement names its tenant and store; who may read is an indexed lookup inside it. */
export class StoreItemLists {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /**
   * One page of the items the grantees may read, with the total of all of them. `compiled.set` selects the keys of
   * the matching items the caller may read, each once (storage.query.ts; it may refer to the readable keys as `q__r`);
   * the order refers to the item aliased `i`; `i.seq` (creation order) breaks ties so pages are stable.
   */
  async list(scope: StoreScope, compiled: CompiledItemQuery, start: number, limit: number): Promise<ListPage> {
    const { tenantId, storeId, grantees } = scope;
    const tenant = forTenant(this.db, tenantId);
    const readable = tenant
      .selectFrom('storage_item_access as a')
      .select('a.item_seq')
      .where('a.store_id', '=', storeId)
      .where('a.mode', '=', 'r')
      .where('a.grantee', 'in', grantees);
    if (!compiled.set && compiled.orderBy.length === 0) return this.listInCreationOrder(tenantId, storeId, readable, start, limit);
    // The matches as keys, computed once (MATERIALIZED) for the count and the page: the query's set (index ranges of
    // the caller's reader sets, or one pass over the store where the index cannot answer). `q__r` (every readable key)
    // is the universe a NOT refers to, computed only then.
    const matches = compiled.set ? sql`SELECT q__k.seq FROM (${compiled.set}) AS q__k` : sql`SELECT seq FROM q__r`;
    const withMatches = this.db
      .with('q__r', () => readable.clearSelect().select('a.item_seq as seq').distinct())
      .with((cte) => cte('q__m').materialized(), () => sql`(${matches})` as any);
    const countMatches = async () => {
      const row = await withMatches.selectFrom('q__m' as any).select(sql<number>`count(*)`.as('n')).executeTakeFirst();
      return Number((row as any)?.n ?? 0);
    };
    if (limit === 0) return { total: await countMatches(), records: [] };
    // Keys, their count and the sort keys only; the documents of the page are read afterwards. The item's row is
    // joined only when the sort needs a column of it.
    let page = compiled.needsItemRow
      ? withMatches.selectFrom('q__m as m' as any).innerJoin('storage_items as i', 'i.seq', 'm.seq' as any)
      : withMatches.selectFrom('q__m as i' as any);
    for (const join of compiled.joins) page = this.dialect.leftJoinRow(page, join.table, join.alias, join.on);
    let ordered = page.select(['i.seq' as any, sql<number>`(SELECT count(*) FROM q__m)`.as('total')]);
    for (const o of compiled.orderBy) ordered = ordered.orderBy(o);
    const rows = await ordered.orderBy('i.seq' as any).limit(limit).offset(start).execute();
    if (rows.length === 0) return { total: start > 0 ? await countMatches() : 0, records: [] };
    return { total: Number(rows[0].total), records: await this.fetchPage(tenantId, storeId, rows.map((r: any) => Number(r.seq))) };
  }

  /**
   * Without query, filter or sort, the page and the total come from the access index alone: every access row
   * belongs to an item of its tenant and store (written and deleted in the item's transaction), so the items
   * table is touched only for the page's documents. At 1,000,000 items this spares reading the 20,000 rows a
   * reader of 1 role in 50 may see.
   */
  private async listInCreationOrder(
    tenantId: string,
    storeId: string,
    readable: SelectQueryBuilder<any, any, any>,
    start: number,
    limit: number,
  ): Promise<ListPage> {
    const distinctSeqs = readable.distinct().as('r');
    const countAll = () =>
      this.db
        .selectFrom(distinctSeqs)
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirst()
        .then((r) => Number(r?.n ?? 0));
    if (limit === 0) return { total: await countAll(), records: [] };
    // One statement for the page and its total, as in the general path: both see the same snapshot.
    const rows = await this.db
      .selectFrom(distinctSeqs)
      .select(['r.item_seq', sql<number>`count(*) over ()`.as('total')])
      .orderBy('r.item_seq')
      .limit(limit)
      .offset(start)
      .execute();
    if (rows.length === 0) return { total: start > 0 ? await countAll() : 0, records: [] };
    return { total: Number(rows[0].total), records: await this.fetchPage(tenantId, storeId, rows.map((r) => Number(r.item_seq))) };
  }

  /** The documents of a page as JSON text (spliced into the answer, never parsed), in the page's order. */
  private async fetchPage(tenantId: string, storeId: string, seqs: number[]): Promise<ItemText[]> {
    if (seqs.length === 0) return [];
    const docs = await forTenant(this.db, tenantId)
      .selectFrom('storage_items as i')
      .select(['i.seq', this.dialect.jsonText('i.doc').as('doc_text'), 'i.created_on', 'i.created_by', 'i.updated_on', 'i.updated_by'])
      .where('i.store_id', '=', storeId)
      .where('i.seq', 'in', seqs)
      .execute();
    const bySeq = new Map(docs.map((d) => [Number(d.seq), d]));
    // An item deleted between the two statements is left out (the page is short by exactly that item).
    return seqs.flatMap((seq) => {
      const row = bySeq.get(seq);
      if (!row) return [];
      return [
        {
          docText: row.doc_text,
          createdOn: Number(row.created_on),
          createdBy: row.created_by,
          updatedOn: Number(row.updated_on),
          updatedBy: row.updated_by,
        },
      ];
    });
  }
}
