import { sql, type Kysely, type RawBuilder } from 'kysely';
import { announcedEvent } from '../../../platform/events/index.js';
import type { StorageSql } from './storage-sql.js';
import { COUNT_KEY, countedRow } from './value-counts-sql.js';
import { RESERVED_TOKEN_MARK } from '../../../platform/query/text-terms.js';

/** Shards of a count (the server process's, as the platform's change counters: Dialect.createChangeCounter). */
const COUNT_SHARDS = 32;
/** The shard of storage_term_counts of the server process. */
const TERM_SHARD = sql<number>`(pg_backend_pid() % ${sql.lit(COUNT_SHARDS)})`;
/** The lexeme (of a words row's tsvector) is a word, not a reserved token (text-terms.ts): its first character. */
const notToken = (lexeme: string) =>
  sql`left(${sql.raw(lexeme)}, 1) <> chr(${sql.lit(RESERVED_TOKEN_MARK.codePointAt(0)!)})`;

/**
 * The items of `records` (StorageSql.createItems) inserted in their order, each inserted one with its access rows,
 * value rows, words and term counts (writable CTEs; the value counts by their statement trigger); `done` holds the
 * inserted ones, which `finish` reads, each with its change in the feed event as JSON text (`e`): made here from the
 * document's text `d` and what follows it (`m`: the members a read adds, then the readers; item-json.ts
 * createdItemTail), so that the document is sent once (storage-019). A record of a build before it carries the whole
 * change as `e` instead, which is taken as it is.
 */
const createItemsStatement = (records: RawBuilder<unknown>, finish: RawBuilder<unknown>) => sql`with r as (
      select * from jsonb_to_recordset(${records}) as x(n integer, t text, s text, k text, d text, c bigint, b text, g jsonb, x smallint, r bigint, v jsonb, w jsonb, e text, m text)),
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
      select x.term, done.r, ${TERM_SHARD}, count(*) from done cross join jsonb_array_elements_text(done.w) as x(term)
      where ${notToken('x.term')} group by x.term, done.r order by x.term, done.r
      on conflict (term, rs, shard) do update set n = c.n + excluded.n)
    ${finish}`;

/**
 * storage_create_items (storage-016, made again by storage-017 and storage-019): the creates of a batch into one
 * store and their feed event, one call and one round trip (a transaction of its own where it is called alone: the call
 * is the statement). Its statements run one after the other, so the event's counter row is taken after the items'
 * count rows, as every write of the module takes them (its statement trigger's value counts run at the end of the
 * first). The event's payload is made from the items inserted (their changes `e`, between `p_payload_head` and
 * `p_payload_tail`); no event where none was.
 * A database keeps the function its migration made: a change of createItemsStatement or of announcedEvent needs a
 * migration that makes it again (test/storage/created-items-events.test.ts fails on a change of the text until
 * test/storage/create-items-function.sql, the text of the last migration that made it, is rewritten).
 */
export function createItemsFunction(db: Kysely<any>): string {
  const v = (name: string) => sql.raw<string>(name);
  const items = createItemsStatement(
    v('p_records'),
    sql`select array_agg(n order by n), string_agg(e, ',' order by n) into v_created, v_changes from done`,
  );
  const event = announcedEvent(db, {
    tenantId: v('p_tenant'),
    topic: v('p_topic'),
    createdOn: v('p_created_on'),
    payload: sql`p_payload_head || v_changes || p_payload_tail`,
    notice: {
      channel: v('p_channel'),
      before: v('p_before'),
      head: v('p_head'),
      tail: v('p_tail'),
      reference: v('p_reference'),
      maxPayloadBytes: v('p_max_payload_bytes'),
    },
    into: v('v_event, v_notified'),
  });
  const [itemsSql, eventSql] = [items.compile(db), event.compile(db)].map((compiled) => {
    // A bound value would be the function's own $n here: every value is one of its variables.
    if (compiled.parameters.length > 0) throw new Error('storage_create_items: a statement of it has bound values');
    return compiled.sql;
  });
  const body = `
declare
  v_created integer[];
  v_changes text;
  v_event bigint;
  v_notified text;
begin
  ${itemsSql};
  if v_created is not null then
    ${eventSql};
  end if;
  return query select x.n, v_event from unnest(v_created) as x(n);
end`;
  return `create or replace function storage_create_items(p_records jsonb, p_tenant text, p_topic text,
  p_created_on bigint, p_payload_head text, p_payload_tail text, p_channel text, p_before text, p_head text,
  p_tail text, p_reference text, p_max_payload_bytes integer)
returns table (item_n integer, event_id bigint) language plpgsql as ${quoteBody(body)}`;
}

/** A function body as a dollar-quoted string literal. */
const quoteBody = (body: string) => {
  if (body.includes('$body$')) throw new Error('storage_create_items: its body holds the quote');
  return `$body$${body}$body$`;
};

/**
 * The unique key of a count row from storage-018: the plain columns, nulls equal (PostgreSQL 15). One index is then
 * both the upserts' arbiter and the lookups' (kept-total.ts: a value or a range at a path, the caller's reader sets).
 * The count is not in it, so an update of a count can stay on its page (HOT); before, an index on the coalesced key
 * and a lookup index covering the count each took an entry per count row written (docs/benchmarks.md, issue 47's
 * fourteenth run).
 */
const PLAIN_COUNT_KEY = sql.raw('vk, t, num, str, rs, shard');

/**
 * The value counts' statement trigger function (storage_item_values_count): the changed rows, as transition tables,
 * one upsert per statement, grouped by count row and in the key's order (two transactions of one shard then lock
 * shared rows in the same order), into the shard of the server process, so that writers on other connections hold
 * other rows until they commit. `key`: the count rows' unique key, the upsert's arbiter.
 */
function valueCountsBody(db: Kysely<any>, key: RawBuilder<unknown>): string {
  const add = (rows: 'old_rows' | 'new_rows', by: '+' | '-') =>
    sql`insert into storage_value_counts as c (vk, t, num, str, rs, shard, n)
      select r.vk, r.t, r.num, r.str, r.rs, pg_backend_pid() % ${sql.lit(COUNT_SHARDS)}, ${sql.raw(by)}count(*)
      from ${sql.raw(rows)} r where ${countedRow('r')}
      group by r.vk, r.t, r.num, r.str, r.rs order by r.vk, r.t, r.num, r.str, r.rs
      on conflict (${key}) do update set n = c.n + excluded.n`.compile(db).sql;
  return `begin
      if tg_op in ('DELETE', 'UPDATE') then ${add('old_rows', '-')}; end if;
      if tg_op in ('INSERT', 'UPDATE') then ${add('new_rows', '+')}; end if;
      return null; end`;
}

export const postgresStorageSql: StorageSql = {
  createItems: ([records, ...rest]) =>
    sql<{ item_n: number; event_id: string | number }>`select item_n, event_id
      from storage_create_items(${records}::jsonb, ${sql.join(rest)})`,
  createItemsFunction: async (db) => {
    await sql.raw(createItemsFunction(db)).execute(db);
  },
  keepValueCounts: async (db) => {
    await sql`create function storage_item_values_count() returns trigger language plpgsql as ${sql.lit(
      valueCountsBody(db, COUNT_KEY),
    )}`.execute(db);
    for (const [event, tables] of [
      ['insert', 'new table as new_rows'],
      ['update', 'old table as old_rows new table as new_rows'],
      ['delete', 'old table as old_rows'],
    ] as const) {
      await sql`create trigger ${sql.id(`storage_item_values_count_${event}`)} after ${sql.raw(event)}
        on storage_item_values referencing ${sql.raw(tables)} for each statement
        execute function storage_item_values_count()`.execute(db);
    }
    // TRUNCATE fires no row or statement trigger of the three: the counts of rows gone that way go with them.
    await sql`create function storage_item_values_count_truncate() returns trigger language plpgsql as
      ${sql.lit('begin delete from storage_value_counts; return null; end')}`.execute(db);
    await sql`create trigger storage_item_values_count_truncate after truncate on storage_item_values
      for each statement execute function storage_item_values_count_truncate()`.execute(db);
  },
  // The statement trigger counts every insert already, once per statement.
  countInsertsByStatement: async () => {},
  oneValueCountIndex: async (db) => {
    const { rows } = await sql<{ v: number }>`select current_setting('server_version_num')::int as v`.execute(db);
    if (rows[0].v < 150000)
      throw new Error(
        `PostgreSQL 15 or later is needed (unique indexes with NULLS NOT DISTINCT); this is ${rows[0].v}`,
      );
    // The plain columns are unique as COUNT_KEY's coalesced ones were: a kind (t) has its num always or never, and its
    // str always or never (countedRow), so no two rows differed only by a null against 0 or ''.
    await sql`create unique index storage_value_counts_uq on storage_value_counts (${PLAIN_COUNT_KEY})
      nulls not distinct`.execute(db);
    // Room on each page for a count's new version beside the old: no index holds the count, so an update stays on the
    // page (HOT) and takes no index entry; pages are pruned as they are read, with or without autovacuum.
    await sql`alter table storage_value_counts set (fillfactor = 70)`.execute(db);
    await sql`alter table storage_term_counts set (fillfactor = 70)`.execute(db);
    await sql`drop index storage_value_counts_key_uq`.execute(db);
    await sql`drop index storage_value_counts_lookup_idx`.execute(db);
    await sql`create or replace function storage_item_values_count() returns trigger language plpgsql as ${sql.lit(
      valueCountsBody(db, PLAIN_COUNT_KEY),
    )}`.execute(db);
  },
  documentsAsText: async (db) => {
    await sql`alter table storage_items alter column doc type text using doc::text`.execute(db);
  },
  changesOnTruncate: async (db) => {
    await sql`create function storage_items_changes_truncate() returns trigger language plpgsql as
      ${sql.lit('begin update storage_store_changes set changes = changes + 1; return null; end')}`.execute(db);
    await sql`create trigger storage_items_changes_truncate after truncate on storage_items
      for each statement execute function storage_items_changes_truncate()`.execute(db);
  },
  termShard: TERM_SHARD,
  // In the key's order, as every statement that adds to the counts (creates, writeMany): shared rows are locked in
  // one order.
  forgetTerms: (seq) => sql`insert into storage_term_counts as c (term, rs, shard, n)
    select x.term, i.rs, ${TERM_SHARD}, -1
    from storage_item_words w join storage_items i on i.seq = w.item_seq cross join unnest(tsvector_to_array(w.tsv)) as x(term)
    where w.item_seq = ${seq} and i.rs is not null and ${notToken('x.term')}
    order by x.term, i.rs
    on conflict (term, rs, shard) do update set n = c.n + excluded.n`,
  countExistingTerms: async (db) => {
    await sql`insert into storage_term_counts (term, rs, shard, n)
      select x.term, i.rs, 0, count(*)
      from storage_item_words w join storage_items i on i.seq = w.item_seq cross join unnest(tsvector_to_array(w.tsv)) as x(term)
      where i.rs is not null and ${notToken('x.term')} group by x.term, i.rs`.execute(db);
  },
};
