import { sql } from 'kysely';
import type { StorageSql } from './storage-sql.js';

export const postgresStorageSql: StorageSql = {
  // Items inserted in their order; each inserted one gets its access rows and value index rows in the same statement
  // (writable CTEs).
  insertItemsWithAccess: (records) => sql<{ n: number }>`with r as (
      select * from jsonb_to_recordset(${records}::jsonb) as x(n integer, t text, s text, k text, d jsonb, c bigint, b text, g jsonb, x smallint, r bigint, v jsonb, w jsonb)),
    ins as (
      insert into storage_items (tenant_id, store_id, item_id, doc, created_on, created_by, updated_on, updated_by, idx, rs)
      select t, s, k, d, c, b, c, b, x, r.r from r order by n
      on conflict (tenant_id, store_id, item_id) do nothing
      returning seq, tenant_id, store_id, item_id),
    done as (select r.n, r.g, r.r, r.v, r.w, ins.seq, ins.tenant_id, ins.store_id from ins join r on r.t = ins.tenant_id and r.s = ins.store_id and r.k = ins.item_id),
    acc as (
      insert into storage_item_access (tenant_id, store_id, mode, grantee, item_seq)
      select done.tenant_id, done.store_id, a.mode, a.grantee, done.seq from done cross join jsonb_to_recordset(done.g) as a(mode text, grantee text)),
    val as (
      insert into storage_item_values (vk, item_seq, rs, t, elem, num, str)
      select v.k, done.seq, done.r, v.t, v.e, v.n, v.s
      from done cross join jsonb_to_recordset(done.v) as v(k bigint, t smallint, e smallint, n double precision, s text)),
    wrd as (
      insert into storage_item_words (item_seq, tsv)
      select done.seq, array_to_tsvector(array(select jsonb_array_elements_text(done.w))) from done where jsonb_array_length(done.w) > 0)
    select n from done`,
};
