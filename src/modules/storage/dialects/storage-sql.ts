import type { Kysely, RawBuilder } from 'kysely';

/**
 * The arguments of a call of `createItems`, in the order of the function's parameters: the records, then the store
 * event's tenant, topic, time, and the JSON text of its payload before and after the inserted items' changes (`e` of
 * createItemsStatement, joined by commas), then its NOTIFY's parts (ChangeFeed.notice: channel, before, head, tail,
 * reference, the largest payload inline; all null where none goes out).
 */
export type CreateItemsArgs = [
  records: string,
  tenantId: string,
  topic: string,
  createdOn: number,
  payloadHead: string,
  payloadTail: string,
  channel: string | null,
  before: string | null,
  head: string | null,
  tail: string | null,
  reference: string | null,
  maxPayloadBytes: number | null,
];

/**
 * The storage module's statements that differ by engine, over its own tables (the platform's Dialect holds the
 * differences every module shares). Chosen once, by the dialect's name (dialects/index.ts).
 */
export interface StorageSql {
  /**
   * One call that creates many items of one store, each with its access rows, value rows and words, and the store's
   * feed event of those inserted, answering the record numbers (`item_n`) of those inserted (an item whose id exists
   * already is skipped) and the event's id (`event_id`, on each row; no rows and no event where none was inserted).
   * `args` (CreateItemsArgs) are values or their placeholders. The records are the JSON text of an array of `{n, t:
   * tenant, s: store, k: item id, d: document's JSON text (a string, stored as it is), c: epoch ms, b: login name,
   * g: [{mode, grantee}], x: idx flag, r: reader set, v: [{k, t, e, n, s}] (value index rows), w: [words] (full-text
   * index), e: the item's change in the event's payload, as JSON text}`.
   * Undefined where the engine has no data-modifying statements inside WITH (SQLite), whose writes run as separate
   * statements of one transaction at no extra cost (no round trips).
   */
  readonly createItems?: (args: readonly unknown[]) => RawBuilder<{ item_n: number; event_id: number | string }>;
  /** A migration step (storage-016): the function of `createItems` (PostgreSQL; nothing on SQLite). */
  readonly createItemsFunction: (db: Kysely<any>) => Promise<void>;
  /**
   * A migration step: triggers on storage_item_values that keep storage_value_counts (value-counts.ts) in the
   * transaction of every statement that inserts, updates or deletes value rows (PostgreSQL: once per statement, in a
   * shard of the server process; SQLite: once per row, one shard).
   */
  readonly keepValueCounts: (db: Kysely<any>) => Promise<void>;
  /**
   * A migration step (storage-013): where inserts of value rows are counted by the module's statement
   * (`countInsertedValues`) instead of a trigger, the insert trigger goes. PostgreSQL keeps its statement trigger.
   */
  readonly countInsertsByStatement: (db: Kysely<any>) => Promise<void>;
  /**
   * A migration step (storage-018): storage_value_counts keeps one index, unique on its plain key columns (not the
   * count), and both count tables room on their pages for updates, where it kept a unique index on a coalesced key and
   * a lookup index (PostgreSQL 15 and later: unique NULLS NOT DISTINCT; an older server fails the migration with that
   * message). SQLite keeps both.
   */
  readonly oneValueCountIndex: (db: Kysely<any>) => Promise<void>;
  /**
   * A migration step (storage-014): storage_items.doc holds the document as JSON text, as the service wrote it
   * (PostgreSQL converts its jsonb column, rewriting the table; SQLite's column is text already).
   */
  readonly documentsAsText: (db: Kysely<any>) => Promise<void>;
  /**
   * One statement that adds the value rows of items `seqs` (their keys, each a bound value), just inserted in the
   * caller's transaction, to storage_value_counts: grouped per count row, one upsert for the batch. SQLite, whose row
   * trigger cost about as much again as the rows' own insert (a create's value rows, docs/benchmarks.md); undefined
   * where a trigger counts the inserts (PostgreSQL: once per statement already).
   */
  readonly countInsertedValues?: (seqs: readonly unknown[]) => RawBuilder<unknown>;
  /**
   * The shard of storage_term_counts a write adds to (term-counts.ts): SQLite 0 (one writer at a time); PostgreSQL the
   * server process's, so that writers on other connections hold other rows until they commit.
   */
  readonly termShard: RawBuilder<number>;
  /**
   * One statement that takes the words row of item `seq` (storage_item_words) out of storage_term_counts: -1 for each
   * of its words under the item's reader set as its row has it now (storage_items.rs); nothing where it has no words
   * row or no reader set. Run before the words row is deleted and before the item's reader set changes.
   */
  readonly forgetTerms: (seq: number) => RawBuilder<unknown>;
  /**
   * A migration step (storage-015): emptying storage_items by TRUNCATE (PostgreSQL; it fires no row or statement
   * trigger of a delete) raises every store's change count, so that no entity tag or kept list answer of the items
   * before it holds after it. SQLite has no TRUNCATE: its deletes raise the counts by their triggers.
   */
  readonly changesOnTruncate: (db: Kysely<any>) => Promise<void>;
  /** A migration step: storage_term_counts of every words row there is, under its item's reader set (storage-012). */
  readonly countExistingTerms: (db: Kysely<any>) => Promise<void>;
}
