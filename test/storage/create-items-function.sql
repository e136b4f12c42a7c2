create or replace function storage_create_items(p_records jsonb, p_tenant text, p_topic text,
  p_created_on bigint, p_payload_head text, p_payload_tail text, p_channel text, p_before text, p_head text,
  p_tail text, p_reference text, p_max_payload_bytes integer)
returns table (item_n integer, event_id bigint) language plpgsql as $body$
declare
  v_created integer[];
  v_changes text;
  v_event bigint;
  v_notified text;
begin
  with r as (
      select * from jsonb_to_recordset(p_records) as x(n integer, t text, s text, k text, d text, c bigint, b text, g jsonb, x smallint, r bigint, v jsonb, w jsonb, e text, m text)),
    ins as (
      insert into storage_items (tenant_id, store_id, item_id, doc, created_on, created_by, updated_on, updated_by, idx, rs)
      select t, s, k, d, c, b, c, b, x, r.r from r order by n
      on conflict (tenant_id, store_id, item_id) do nothing
      returning seq, tenant_id, store_id, item_id),
    done as (select r.n, r.g, r.r, r.v, r.w, coalesce(r.e, '{"action":"created","itemId":' || to_json(r.k)::text || ',"item":' || left(r.d, -1) || r.m) as e, ins.seq, ins.tenant_id, ins.store_id from ins join r on r.t = ins.tenant_id and r.s = ins.store_id and r.k = ins.item_id),
    acc as (
      insert into storage_item_access (tenant_id, store_id, mode, grantee, item_seq)
      select done.tenant_id, done.store_id, a.mode, a.grantee, done.seq from done cross join jsonb_to_recordset(done.g) as a(mode text, grantee text)),
    val as (
      insert into storage_item_values (vk, item_seq, rs, t, elem, num, str)
      select v.k, done.seq, done.r, v.t, v.e, v.n, v.s
      from done cross join jsonb_to_recordset(done.v) as v(k bigint, t smallint, e smallint, n double precision, s text)),
    wrd as (
      insert into storage_item_words (item_seq, tsv)
      select done.seq, array_to_tsvector(array(select jsonb_array_elements_text(done.w))) from done where jsonb_array_length(done.w) > 0),
    cnt as (
      insert into storage_term_counts as c (term, rs, shard, n)
      select x.term, done.r, (pg_backend_pid() % 32), count(*) from done cross join jsonb_array_elements_text(done.w) as x(term)
      where left(x.term, 1) <> chr(57344) group by x.term, done.r order by x.term, done.r
      on conflict (term, rs, shard) do update set n = c.n + excluded.n)
    select array_agg(n order by n), string_agg(e, ',' order by n) into v_created, v_changes from done;
  if v_created is not null then
    with p as (select p_payload_head || v_changes || p_payload_tail::text as payload),
      c as (insert into "change_event_counters" ("tenant_id", "last_id") values (p_tenant, 1) on conflict ("tenant_id") do update set "last_id" = change_event_counters.last_id + 1 returning "last_id"),
      e as (insert into change_events (tenant_id, id, topic, payload, created_on)
        select p_tenant, c.last_id, p_topic, p.payload, p_created_on from c, p)
    select c.last_id as id, (select pg_notify(p_channel, p_before || c.last_id || case when octet_length(p.payload) <= p_max_payload_bytes
        then p_head || p.payload || p_tail else p_reference end) where p_channel::text is not null)::text as notified into v_event, v_notified from c, p;
  end if;
  return query select x.n, v_event from unnest(v_created) as x(n);
end$body$