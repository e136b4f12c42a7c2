import { sql } from 'kysely';
import type { StorageSql } from './storage-sql.js';
import { COUNT_KEY, countedRow } from './value-counts-sql.js';

/** SQLite: every storage statement is portable SQL; its writes are local, so one transaction of several is cheap. */
export const sqliteStorageSql: StorageSql = {
  keepValueCounts: async (db) => {
    // A row trigger per change, one shard: the writes of one database file are one at a time anyway.
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
};
