import { sql } from 'kysely';
import type { StorageSql } from './storage-sql.js';
import { COUNT_KEY, countedRow } from './value-counts-sql.js';

/** The words of a row of storage_item_words (aliased w) as a JSON array, for json_each. */
const WORDS_AS_JSON = sql.raw(`'["' || replace(w.words, ' ', '","') || '"]'`);

/** SQLite: every storage statement is portable SQL; its writes are local, so one transaction of several is cheap. */
export const sqliteStorageSql: StorageSql = {
  // Its creates are statements of the writer's transaction (store-item-creates.ts): no function to make.
  createItemsFunction: async () => {},
  keepValueCounts: async (db) => {
    // A row trigger per change, one shard: the writes of one database file are one at a time anyway. (The insert
    // trigger went in storage-013: the module's writes count their inserts by statement, countInsertedValues.)
    const add = (row: 'new' | 'old', by: 1 | -1) =>
      sql`insert into storage_value_counts (vk, t, num, str, rs, shard, n)
        select ${sql.raw(`${row}.vk, ${row}.t, ${row}.num, ${row}.str, ${row}.rs`)}, 0, ${sql.lit(by)}
        where ${countedRow(row)}
        on conflict (${COUNT_KEY}) do update set n = n + ${sql.lit(by)};`;
    await sql`create trigger storage_item_values_count_insert after insert on storage_item_values
      when ${countedRow('new')} begin ${add('new', 1)} end`.execute(db);
    await sql`create trigger storage_item_values_count_delete after delete on storage_item_values
      when ${countedRow('old')} begin ${add('old', -1)} end`.execute(db);
    await sql`create trigger storage_item_values_count_update after update on storage_item_values
      begin ${add('old', -1)} ${add('new', 1)} end`.execute(db);
  },
  countInsertsByStatement: async (db) => {
    await sql`drop trigger if exists storage_item_values_count_insert`.execute(db);
  },
  documentsAsText: async () => {},
  changesOnTruncate: async () => {},
  // SQLite's counts keep their key and lookup index (its upserts are grouped by statement already).
  oneValueCountIndex: async () => {},
  countInsertedValues: (seqs) => sql`insert into storage_value_counts (vk, t, num, str, rs, shard, n)
    select v.vk, v.t, v.num, v.str, v.rs, 0, count(*) from storage_item_values v
    where v.item_seq in (${sql.join(seqs.map((seq) => sql`${seq}`))}) and ${countedRow('v')}
    group by v.vk, v.t, v.num, v.str, v.rs
    on conflict (${COUNT_KEY}) do update set n = n + excluded.n`,
  termShard: sql<number>`0`,
  // The words row's words are its FTS5 column as stored (space-separated, letters and digits): a JSON array of them.
  forgetTerms: (seq) => sql`insert into storage_term_counts (term, rs, shard, n)
    select j.value, i.rs, 0, -1 from storage_item_words w, storage_items i, json_each(${WORDS_AS_JSON}) j
    where w.rowid = ${seq} and i.seq = w.rowid and i.rs is not null and w.words <> ''
    on conflict (term, rs, shard) do update set n = n + excluded.n`,
  countExistingTerms: async (db) => {
    await sql`insert into storage_term_counts (term, rs, shard, n)
      select j.value, i.rs, 0, count(*) from storage_item_words w, storage_items i, json_each(${WORDS_AS_JSON}) j
      where i.seq = w.rowid and i.rs is not null and w.words <> '' group by j.value, i.rs`.execute(db);
  },
};
