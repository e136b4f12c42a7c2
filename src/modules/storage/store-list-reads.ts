// How the list reads run their statements (off the main thread where the database can, prepared on the server) and
// read a page's documents as JSON text, and rows that come as arrays read by their columns' names.
import { sql, type CompiledQuery, type Kysely, type QueryResult, type RawBuilder } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { preparedOnServer, rowsAsArrays } from '../../platform/db/prepared-query.js';
import { readOffThread } from '../../platform/db/read-off-thread.js';
import type { DataAccess } from '../../platform/db/data-access.js';
import type { StorageTables } from './storage.tables.js';
import type { CompiledList } from './store-list-cache.js';

type Db = Kysely<StorageTables>;

/** An item row with its document as JSON text, for the read that answers it without parsing it. */
export interface ItemText {
  docText: string;
  createdOn: number;
  createdBy: string;
  updatedOn: number;
  updatedBy: string;
}

export interface ListPage {
  total: number;
  records: ItemText[];
  /**
   * The store's change count read no later than the page's rows (in the snapshot of the list's first statement that
   * counts), for the answer's tag: where the list was asked for it (StoreItemLists.read's `changesFirst`).
   */
  changes?: string;
}

/**
 * The columns of a statement whose rows come as arrays (rowsAsArrays: the drivers build no object per row; a page of
 * 100 rows of 6 columns on better-sqlite3, 0.154 ms as objects, 0.083 ms as arrays), read by name: the SELECT list is
 * built from the same names, so no read can take another column's place.
 */
export class ArrayColumns<N extends string> {
  private readonly at: Readonly<Record<N, number>>;

  constructor(private readonly names: readonly N[]) {
    this.at = Object.fromEntries(names.map((name, i) => [name, i])) as Record<N, number>;
  }

  /** `<expression> AS <name>, ...` in the columns' order. */
  select(expressions: Readonly<Record<N, RawBuilder<unknown>>>): RawBuilder<unknown> {
    return sql.join(this.names.map((name) => sql`${expressions[name]} AS ${sql.ref(name)}`));
  }

  get(row: readonly unknown[], name: N): unknown {
    return row[this.at[name]];
  }
}

/** The columns of an ItemText. */
export const ITEM_TEXT_COLUMNS = ['doc_text', 'created_on', 'created_by', 'updated_on', 'updated_by'] as const;
type ItemTextColumn = (typeof ITEM_TEXT_COLUMNS)[number];

/** The ItemText columns of the item row aliased `alias`. */
export function itemTextColumns(alias: string): Record<ItemTextColumn, RawBuilder<unknown>> {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  return {
    doc_text: column('doc'),
    created_on: column('created_on'),
    created_by: column('created_by'),
    updated_on: column('updated_on'),
    updated_by: column('updated_by'),
  };
}

/** The ItemText of a row read by `columns`. */
export function itemTextOf(columns: Pick<ArrayColumns<ItemTextColumn>, 'get'>, row: readonly unknown[]): ItemText {
  return {
    docText: columns.get(row, 'doc_text') as string,
    createdOn: Number(columns.get(row, 'created_on')),
    createdBy: columns.get(row, 'created_by') as string,
    updatedOn: Number(columns.get(row, 'updated_on')),
    updatedBy: columns.get(row, 'updated_by') as string,
  };
}

/** A page's documents and their keys. */
const FETCHED = new ArrayColumns([...ITEM_TEXT_COLUMNS, 'seq'] as const);

/** Runs the statements of list reads. */
export class ListReads {
  readonly db: Db;

  constructor(
    private readonly data: DataAccess<StorageTables>,
    readonly dialect: Dialect,
  ) {
    this.db = data.db;
  }

  /**
   * Runs the statement `build` makes for the list, built once per `key` and kept with it (CompiledList.statement),
   * prepared on the server: a list asked again runs the same text with the same values.
   */
  run<R>(list: CompiledList, key: string, build: () => CompiledQuery<R>): Promise<QueryResult<R>> {
    return readOffThread(
      this.data,
      list.statement(key, () => preparedOnServer(build())),
    );
  }

  /** Runs a statement built for this read only; `prepared`: its text recurs (its values aside), prepare it. */
  once<R>(query: CompiledQuery<R>, prepared = false): Promise<QueryResult<R>> {
    return readOffThread(this.data, prepared ? preparedOnServer(query) : query);
  }

  /** The documents of a page as JSON text (spliced into the answer, never parsed), in the page's order. */
  async fetchPage(tenantId: string, storeId: string, seqs: number[]): Promise<ItemText[]> {
    if (seqs.length === 0) return [];
    const columns = FETCHED.select({ ...itemTextColumns('i'), seq: sql.ref('i.seq') });
    const statement = sql`SELECT ${columns} FROM storage_items i
      WHERE i.tenant_id = ${tenantId} AND i.store_id = ${storeId} AND i.seq IN (${sql.join(seqs)})`;
    const docs = await this.once(rowsAsArrays<unknown[]>(statement.compile(this.db)));
    const bySeq = new Map(docs.rows.map((row) => [Number(FETCHED.get(row, 'seq')), row]));
    // An item deleted between the two statements is left out (the page is short by exactly that item).
    return seqs.flatMap((seq) => {
      const row = bySeq.get(seq);
      return row ? [itemTextOf(FETCHED, row)] : [];
    });
  }
}
