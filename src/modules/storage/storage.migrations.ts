import { sql } from 'kysely';
import type { ModuleMigration } from '../../platform/db/migrations.js';
import { storageSqlFor } from './dialects/index.js';
import { storageEngineMigrations } from './storage-engine.migrations.js';
import { COUNT_KEY } from './dialects/value-counts-sql.js';

export const storageMigrations: ModuleMigration[] = [
  {
    name: '2026-11-22-storage-001-initial',
    async up(db, d) {
      await db.schema
        .createTable('storage_stores')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('store_id', 'text', (c) => c.notNull())
        .addColumn('index_name', 'text', (c) => c.notNull())
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('storage_stores_pk', ['tenant_id', 'store_id'])
        .execute();

      // `seq` orders items by creation and keys the access rows (SQLite: the rowid itself).
      await d
        .addSerialPrimaryKey(db.schema.createTable('storage_items'), 'seq')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('store_id', 'text', (c) => c.notNull())
        .addColumn('item_id', 'text', (c) => c.notNull())
        .addColumn('doc', d.jsonColumnType, (c) => c.notNull())
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('updated_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('updated_by', 'text', (c) => c.notNull())
        .addForeignKeyConstraint(
          'storage_items_store_fk',
          ['tenant_id', 'store_id'],
          'storage_stores',
          ['tenant_id', 'store_id'],
          (c) => c.onDelete('cascade'),
        )
        .addUniqueConstraint('storage_items_key_uq', ['tenant_id', 'store_id', 'item_id'])
        .execute();

      // The primary key is the lookup "which items may these grantees read in this store"; on SQLite the
      // table is that index itself (WITHOUT ROWID), which halves the b-trees an item write touches.
      const access = db.schema
        .createTable('storage_item_access')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('store_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('grantee', 'text', (c) => c.notNull())
        .addColumn('item_seq', d.bigintColumnType, (c) =>
          c.notNull().references('storage_items.seq').onDelete('cascade'),
        )
        .addPrimaryKeyConstraint('storage_item_access_pk', ['tenant_id', 'store_id', 'mode', 'grantee', 'item_seq']);
      await d.keyOnlyTable(access).execute();
      // Replacing an item's access rows and the cascade on delete look rows up by item.
      await db.schema
        .createIndex('storage_item_access_item_idx')
        .on('storage_item_access')
        .column('item_seq')
        .execute();
    },
  },
  {
    // The value index (platform/query/value-index.ts): one row per path and typed scalar of an item, so filters and
    // sorts read index ranges instead of every readable document. `idx` on the item says whether its rows are there
    // (0: not yet, as for items written before this step; 1: indexed; 2: beyond the caps); items that are not are
    // answered by reading their documents, so results never depend on it (docs/api/storage.md).
    name: '2026-11-23-storage-002-value-index',
    async up(db, d) {
      await db.schema
        .alterTable('storage_items')
        .addColumn('idx', 'smallint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createTable('storage_item_values')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('store_id', 'text', (c) => c.notNull())
        .addColumn('item_seq', d.bigintColumnType, (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('t', 'smallint', (c) => c.notNull())
        .addColumn('elem', 'smallint', (c) => c.notNull())
        .addColumn('num', 'double precision')
        .addColumn('str', d.codePointTextType)
        .execute();
      // Lookups by value: equality and ranges on numbers (t, num) and strings (t, num IS NULL, str) of one path.
      await db.schema
        .createIndex('storage_item_values_lookup_idx')
        .on('storage_item_values')
        .columns(['tenant_id', 'store_id', 'path', 't', 'num', 'str', 'item_seq'])
        .execute();
      // The rows of one item (its key is unique across tenants and stores): the sort key of a path, read from this
      // index alone (covering, scope columns last), and replacing or deleting an item's rows.
      await db.schema
        .createIndex('storage_item_values_item_idx')
        .on('storage_item_values')
        .columns(['item_seq', 'path', 'elem', 't', 'num', 'str', 'tenant_id', 'store_id'])
        .execute();
      // The words of the items' strings and numbers: the engine's full-text structure (Dialect.words).
      await d.words.create(db, 'storage_item_words');
      // The items a query must read as documents (normally none).
      await db.schema
        .createIndex('storage_items_unindexed_idx')
        .on('storage_items')
        .columns(['tenant_id', 'store_id', 'seq'])
        .where(sql.ref('idx'), '<>', 1)
        .execute();
    },
  },
  {
    // Compact value rows: the tenant, store and path of a value row become one integer key (storage_value_keys), so
    // each row's two index entries carry an integer instead of a tenant UUID, a store and a path of text. Comparing
    // those three text columns at every step of every index search made the value rows the largest cost of a create
    // (SQLite, 6 rows per item: 98 -> 47 us per item in isolation). The rows are rebuilt from the documents by the
    // background indexer (every item marked not indexed; queries read documents until it is done, so answers never
    // change, only their speed for a while after the upgrade).
    name: '2026-11-24-storage-003-value-keys',
    async up(db, d) {
      await d
        .addSerialPrimaryKey(db.schema.createTable('storage_value_keys'), 'id')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('store_id', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('storage_value_keys_path_idx')
        .on('storage_value_keys')
        .columns(['tenant_id', 'store_id', 'path'])
        .unique()
        .execute();
      await db.schema.dropTable('storage_item_values').execute();
      await db.schema
        .createTable('storage_item_values')
        .addColumn('vk', d.bigintColumnType, (c) => c.notNull())
        .addColumn('item_seq', d.bigintColumnType, (c) => c.notNull())
        .addColumn('t', 'smallint', (c) => c.notNull())
        .addColumn('elem', 'smallint', (c) => c.notNull())
        .addColumn('num', 'double precision')
        .addColumn('str', d.codePointTextType)
        .execute();
      // Lookups by value: equality and ranges on numbers (t, num) and strings (t, num IS NULL, str) of one key.
      await db.schema
        .createIndex('storage_item_values_lookup_idx')
        .on('storage_item_values')
        .columns(['vk', 't', 'num', 'str', 'item_seq'])
        .execute();
      // The rows of one item: the sort key of a path, read from this index alone (covering), and replacing or deleting
      // an item's rows.
      await db.schema
        .createIndex('storage_item_values_item_idx')
        .on('storage_item_values')
        .columns(['item_seq', 'vk', 'elem', 't', 'num', 'str'])
        .execute();
      await db.updateTable('storage_items').set({ idx: 0 }).where('idx', '<>', 0).execute();
    },
  },
  {
    // Reader sets: the distinct read restrictions of a store's items, each an integer `rs` on the item's value rows, so
    // that a list's filters count and page the readable matches inside the value index (`rs IN <the caller's sets>`),
    // instead of probing the access rows of every match (SQLite, 100,000 items, 25,000 matches: 21 -> 0.8 ms for
    // the count). The lookup index ends with (rs, elem, item_seq): readable rows of one value are index ranges, and
    // the rows of array elements (the only ones that can repeat an item) are apart from the others. The value rows
    // are rebuilt by the background indexer, as in storage-003.
    name: '2026-11-24-storage-004-reader-sets',
    async up(db, d) {
      await d
        .addSerialPrimaryKey(db.schema.createTable('storage_reader_sets'), 'id')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('store_id', 'text', (c) => c.notNull())
        .addColumn('grantees_hash', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('storage_reader_sets_hash_idx')
        .on('storage_reader_sets')
        .columns(['tenant_id', 'store_id', 'grantees_hash'])
        .unique()
        .execute();
      const grantees = db.schema
        .createTable('storage_reader_set_grantees')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('store_id', 'text', (c) => c.notNull())
        .addColumn('grantee', 'text', (c) => c.notNull())
        .addColumn('set_id', d.bigintColumnType, (c) => c.notNull())
        .addPrimaryKeyConstraint('storage_reader_set_grantees_pk', ['tenant_id', 'store_id', 'grantee', 'set_id']);
      await d.keyOnlyTable(grantees).execute();
      await db.schema.dropTable('storage_item_values').execute();
      await db.schema
        .createTable('storage_item_values')
        .addColumn('vk', d.bigintColumnType, (c) => c.notNull())
        .addColumn('item_seq', d.bigintColumnType, (c) => c.notNull())
        .addColumn('rs', d.bigintColumnType, (c) => c.notNull())
        .addColumn('t', 'smallint', (c) => c.notNull())
        .addColumn('elem', 'smallint', (c) => c.notNull())
        .addColumn('num', 'double precision')
        .addColumn('str', d.codePointTextType)
        .execute();
      await db.schema
        .createIndex('storage_item_values_lookup_idx')
        .on('storage_item_values')
        .columns(['vk', 't', 'num', 'str', 'rs', 'elem', 'item_seq'])
        .execute();
      await db.schema
        .createIndex('storage_item_values_item_idx')
        .on('storage_item_values')
        .columns(['item_seq', 'vk', 'elem', 't', 'num', 'str'])
        .execute();
      // The forms of each path's values (VALUE_FORM bits), set by the writes (and the indexer) from now on.
      await db.schema
        .alterTable('storage_value_keys')
        .addColumn('forms', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.updateTable('storage_items').set({ idx: 0 }).where('idx', '<>', 0).execute();
    },
  },
  {
    // The words index holds, next to an item's words, reserved tokens of who may read it (text-terms.ts
    // reservedToken): a bare term then finds the caller's readable matches inside the index (SQLite, 100,000 items,
    // 20,000 with the word, of which the caller may read half: the access probes of every match took ~15 ms). SQLite's
    // FTS5 table gets a column for the tokens, so it is made anew; on both engines the background indexer rebuilds
    // the rows.
    name: '2026-11-25-storage-005-reader-tokens',
    async up(db, d) {
      await sql`DROP TABLE storage_item_words`.execute(db);
      await d.words.create(db, 'storage_item_words');
      await db.updateTable('storage_items').set({ idx: 0 }).where('idx', '<>', 0).execute();
    },
  },
  {
    // The tokens of storage-005 named an item's reader set; now they name each grantee who may read it (the caller's
    // grantees are few and known without a lookup, where its readable sets can be many: 'invoice' at 100,000 items,
    // a half reader: ~2.6 ms for 25 sets' tokens, ~1.1 ms for the caller's 2 grantees). The indexer rebuilds the rows.
    name: '2026-11-25-storage-006-grant-tokens',
    async up(db) {
      await db.updateTable('storage_items').set({ idx: 0 }).where('idx', '<>', 0).execute();
    },
  },
  {
    // An item's reader set on its own row, and its items in creation order per store: a list with a filter and no
    // sort walks the store's items in that order, tests each one's reader set and filter, and stops after the page
    // (ListWalks, store-list-walk.ts), as a sort walks its value's index rows. Items with value rows take their set
    // from them; the indexer indexes the others again, which sets it.
    name: '2026-11-26-storage-007-item-readers',
    async up(db, d) {
      await db.schema.alterTable('storage_items').addColumn('rs', d.bigintColumnType).execute();
      await db.schema
        .createIndex('storage_items_order_idx')
        .on('storage_items')
        .columns(['tenant_id', 'store_id', 'seq', 'rs'])
        .execute();
      await sql`UPDATE storage_items SET rs = (SELECT v.rs FROM storage_item_values v WHERE v.item_seq = storage_items.seq LIMIT 1) WHERE idx <> 0`.execute(
        db,
      );
      await db.updateTable('storage_items').set({ idx: 0 }).where('rs', 'is', null).where('idx', '<>', 0).execute();
    },
  },
  {
    // A store's change count: every statement (SQLite: every row) that inserts, updates or deletes items of the store
    // adds 1 to it in the same transaction, through triggers, so no write can forget it (storage_store_changes: on
    // PostgreSQL a row per store and server process, so that concurrent writers of one store do not queue on one row;
    // a deleted store's rows stay, a few per store). A list that is asked again reads it with its page, and where it
    // is what it was when the list was last counted, the store is as it was and that total still holds
    // (ListWalks, store-list-walk.ts): the count of the matches is read once per change, not per list.
    name: '2026-11-27-storage-008-store-changes',
    async up(db, d) {
      await d.createChangeCounter(db, {
        table: 'storage_items',
        counterTable: 'storage_store_changes',
        keys: ['tenant_id', 'store_id'],
      });
    },
  },
  {
    // The rows under a store are kept by the module's own writes, in the item's transaction (the value rows and words
    // never had foreign keys; deleting an item deletes its access rows first): the foreign keys of the access rows (to
    // their item) and of the items (to their store) only added checks. On PostgreSQL each check is a query per
    // inserted row, a fifth of a batch create's statement (replayed batches of 50: 174 -> 141 us per item); SQLite
    // keeps them (Dialect.dropForeignKey). Tenants -> stores stays.
    name: '2026-11-28-storage-009-no-row-foreign-keys',
    async up(db, d) {
      await d.dropForeignKey(db, 'storage_item_access', 'storage_item_access_item_seq_fkey');
      await d.dropForeignKey(db, 'storage_items', 'storage_items_store_fk');
    },
  },
  {
    // The lookup index of the value rows orders a value's rows by item, the reader set last: (vk, t, num, str, elem,
    // item_seq, rs), where it was (.., rs, elem, item_seq). New items come last in every value's rows, so the rows of a
    // batch of creates share the few pages at the ends of their values; ordered by reader set first, each (value,
    // reader set) was a place of its own, and the rows of a batch whose items differ in who may read them landed on a
    // page each (SQLite: about 6 pages of this index a create, half the pages a commit writes; docs/benchmarks.md,
    // session 18). A caller who may read few items of the store probes its own items' rows instead of reading a
    // value's rows (FewReadableHint, store-few-readable.ts); the others test each row's reader set, in the index.
    name: '2026-11-29-storage-010-lookup-by-item',
    async up(db) {
      await db.schema.dropIndex('storage_item_values_lookup_idx').execute();
      await db.schema
        .createIndex('storage_item_values_lookup_idx')
        .on('storage_item_values')
        .columns(['vk', 't', 'num', 'str', 'elem', 'item_seq', 'rs'])
        .execute();
    },
  },
  {
    // Kept counts of the value index (value-counts.ts): how many items hold each value at a path, per reader set, kept
    // by triggers on the value rows in the transaction of every write that changes them (create, update, delete, a
    // changed restriction, the background indexer), so that the total of a list filtered on one path is a sum over
    // the caller's reader sets, not a count of the matches. Existing value rows are counted here; items the indexer
    // still has to index (idx 0) are counted when it writes their rows (a list counts its matches until then).
    name: '2026-11-30-storage-011-value-counts',
    async up(db, d) {
      await db.schema
        .createTable('storage_value_counts')
        .addColumn('vk', d.bigintColumnType, (c) => c.notNull())
        .addColumn('t', 'smallint', (c) => c.notNull())
        .addColumn('num', 'double precision')
        .addColumn('str', d.codePointTextType)
        .addColumn('rs', d.bigintColumnType, (c) => c.notNull())
        .addColumn('shard', 'integer', (c) => c.notNull())
        .addColumn('n', 'bigint', (c) => c.notNull())
        .execute();
      await sql`create unique index storage_value_counts_key_uq on storage_value_counts (${COUNT_KEY})`.execute(db);
      // The counts of a value (or a range of them), the caller's reader sets tested on each.
      await db.schema
        .createIndex('storage_value_counts_lookup_idx')
        .on('storage_value_counts')
        .columns(['vk', 't', 'num', 'str', 'rs', 'n'])
        .execute();
      await sql`insert into storage_value_counts (vk, t, num, str, rs, shard, n)
        select vk, t, num, str, rs, 0, count(*) from storage_item_values v where v.elem = 0 and v.t in (0, 1, 2)
        group by vk, t, num, str, rs`.execute(db);
      await storageSqlFor(d).keepValueCounts(db);
    },
  },
  {
    // Kept counts of the words index (item-term-counts.ts): how many items of a reader set hold each word, kept by the
    // module's writes in the item's transaction (SQLite's FTS5 table has no triggers), so that the total of a list
    // whose query is one bare word is a sum over the caller's reader sets, not a count of its matches. A words row is
    // counted under its item's reader set (storage_items.rs) from its insert to its delete. The primary key serves the
    // lookup (a term, the caller's sets) and the upserts; SQLite keeps the counts in that key alone.
    name: '2026-12-01-storage-012-term-counts',
    async up(db, d) {
      const table = db.schema
        .createTable('storage_term_counts')
        .addColumn('term', d.codePointTextType, (c) => c.notNull())
        .addColumn('rs', d.bigintColumnType, (c) => c.notNull())
        .addColumn('shard', 'integer', (c) => c.notNull())
        .addColumn('n', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('storage_term_counts_pk', ['term', 'rs', 'shard']);
      await d.keyOnlyTable(table).execute();
      await storageSqlFor(d).countExistingTerms(db);
    },
  },
  // The engine steps of the write path from storage-013 on: storage-engine.migrations.ts.
  ...storageEngineMigrations,
];
