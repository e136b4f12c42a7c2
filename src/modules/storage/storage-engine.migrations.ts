// The storage module's migrations from storage-013 on, in order after storage.migrations.ts's: each a step whose SQL
// differs by engine (StorageSql, dialects/), made for the write path's cost or the engine's own storage.
import type { ModuleMigration } from '../../platform/db/migrations.js';
import { storageSqlFor } from './dialects/index.js';

export const storageEngineMigrations: ModuleMigration[] = [
  {
    // SQLite: value rows inserted by the module's writes (creates, updates, the background indexer: ItemValueIndex) are
    // counted by one grouped statement of the write (StorageSql.countInsertedValues), not by a row trigger, whose
    // upsert per row cost about as much as the value rows' own insert. Deletes and updates of value rows keep their
    // triggers. PostgreSQL keeps its statement trigger (no change).
    name: '2026-12-02-storage-013-count-value-inserts-by-statement',
    async up(db, d) {
      await storageSqlFor(d).countInsertsByStatement(db);
    },
  },
  {
    // PostgreSQL: an item's document is kept as the JSON text the service wrote (text, as on SQLite), not as jsonb.
    // Every read answers that text, and converting 100 documents from jsonb to text was about a quarter of the server's
    // CPU of a list's statement (docs/benchmarks.md, branch listpg); a create no longer parses each document into jsonb.
    // The rare SQL that reads a value inside a document parses it there (ValueIndexSource.documentText). Existing
    // documents keep jsonb's text form (same JSON, other spacing and key order) until they are written again.
    name: '2026-12-03-storage-014-documents-as-text',
    async up(db, d) {
      await storageSqlFor(d).documentsAsText(db);
    },
  },
  {
    // PostgreSQL: TRUNCATE of storage_items raises every store's change count (storage-008's triggers see no TRUNCATE),
    // so that an entity tag or a kept list answer (store-kept-lists.ts) of the items before it does not hold after it.
    name: '2026-12-04-storage-015-changes-on-truncate',
    async up(db, d) {
      await storageSqlFor(d).changesOnTruncate(db);
    },
  },
  {
    // PostgreSQL: storage_create_items, a batch of creates into one store with its feed event in one call and one round
    // trip (dialects/postgres.ts createItemsFunction), where the batch's statement ran inside BEGIN, then the event's
    // statement and COMMIT: four round trips, each waiting for the service's busy thread to read its answer (a batch
    // of 23 creates: 16 ms of which its statement 10.6; docs/benchmarks.md, issue 47's thirteenth run).
    name: '2026-12-05-storage-016-create-items-function',
    async up(db, d) {
      await storageSqlFor(d).createItemsFunction(db);
    },
  },
  {
    // PostgreSQL: storage_create_items made again (storage-016 made it): its event's counter statement is now the
    // change feed's own (event-store.ts nextId) instead of a copy of it. Same behaviour; a database keeps the function
    // its migration made, so a change of the function's text is a migration (test/storage/create-items-function.sql).
    name: '2026-12-06-storage-017-create-items-function-again',
    async up(db, d) {
      await storageSqlFor(d).createItemsFunction(db);
    },
  },
  {
    // PostgreSQL: one index on storage_value_counts, unique on the plain key columns (NULLS NOT DISTINCT; the count not
    // in it), serves the count triggers' upserts and the kept totals' lookups (kept-total.ts), where storage-011 made
    // two (a unique index on the coalesced key, a lookup index covering the count): each count row written took an
    // entry in both. Both count tables get fillfactor 70, so a count's update stays on its page (HOT). Server CPU a
    // create 306 against 355 us (docs/benchmarks.md, issue 47's fourteenth run). Needs PostgreSQL 15.
    name: '2026-12-07-storage-018-one-value-count-index',
    async up(db, d) {
      await storageSqlFor(d).oneValueCountIndex(db);
    },
  },
  {
    // PostgreSQL: storage_create_items made again: each item's change in the feed event is made from its document's
    // text and the few members that follow it (`m`), where the service sent the whole change beside the document, a
    // second copy of it escaped as a JSON string inside the records (docs/benchmarks.md, issue 47's fifteenth run). A
    // record that carries the whole change (`e`, a build before this one) is taken as before, so instances of both
    // builds can write during a rolling update.
    name: '2026-12-08-storage-019-create-items-function-changes',
    async up(db, d) {
      await storageSqlFor(d).createItemsFunction(db);
    },
  },
  {
    // PostgreSQL: documents of 2 KB and more compressed with LZ4 instead of pglz, about three times faster to write
    // and a little faster to read (Dialect.fastCompression). Documents stored before keep pglz until written again.
    name: '2026-12-09-storage-020-fast-compression',
    async up(db, d) {
      await d.fastCompression(db, 'storage_items', 'doc');
    },
  },
];
