import { sql, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { createCounterTable, identifier, jsonRecordColumns, statementPart, type Dialect } from './dialect.js';
import { postgresQuery } from './query-postgres.js';
import { postgresWords } from './words-postgres.js';
import { UniqueViolation, WriteConflict } from '../db-errors.js';

export const postgresDialect: Dialect = {
  name: 'postgres',
  jsonColumnType: 'jsonb',
  codePointTextType: sql`text collate "C"`,
  bigintColumnType: 'bigint',
  toJson: (value) => JSON.stringify(value),
  query: postgresQuery,
  words: postgresWords,
  fromJson: <T>(value: unknown): T => (typeof value === 'string' ? (JSON.parse(value) as T) : (value as T)),
  fromBool: (value) => value === true || value === 1 || value === 't',
  toBool: (value) => value,
  toDomainError: (err) => {
    const code = (err as { code?: string })?.code ?? '';
    if (code === '23505') return new UniqueViolation(err);
    // serialization_failure, deadlock_detected
    if (code === '40001' || code === '40P01') return new WriteConflict(err);
    return undefined;
  },
  currentSchema: async (db) => {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    return rows[0]?.schema;
  },
  addSerialPrimaryKey: (table, column) =>
    table.addColumn(column, 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity()) as typeof table,
  createChangeCounter: async (db, { table, counterTable, keys }) => {
    await createCounterTable(db, counterTable, keys);
    // Statement triggers with the changed rows as a transition table: one upsert per statement and key, whatever the
    // rows (a batch of creates, a store's items deleted by a cascade), into the shard of the server process, so that
    // writers on other connections hold other rows until they commit.
    const fn = sql.id(`${table}_changes_count`);
    const columns = sql.join(keys.map((k) => sql.ref(k)));
    const body = sql`insert into ${sql.table(counterTable)} (${columns}, shard, changes)
      select distinct ${columns}, pg_backend_pid() % ${sql.lit(COUNTER_SHARDS)}, 1 from changed
      on conflict (${columns}, shard) do update set changes = ${sql.table(counterTable)}.changes + 1`.compile(db).sql;
    await sql`create function ${fn}() returns trigger language plpgsql as ${sql.lit(`begin ${body}; return null; end`)}`.execute(
      db,
    );
    for (const [event, rows] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ] as const) {
      await sql`create trigger ${sql.id(`${table}_changes_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
        referencing ${sql.raw(rows)} table as changed for each statement execute function ${fn}()`.execute(db);
    }
  },
  dropForeignKey: async (db, table, constraint) => {
    await sql`alter table ${sql.table(table)} drop constraint if exists ${sql.id(constraint)}`.execute(db);
  },
  fastCompression: async (db, table, column) => {
    const { rows } = await sql<{ lz4: boolean }>`select 'lz4' = any(enumvals) as lz4 from pg_settings
      where name = 'default_toast_compression'`.execute(db);
    if (rows[0]?.lz4 !== true) return;
    await sql`alter table ${sql.table(table)} alter column ${sql.id(column)} set compression lz4`.execute(db);
  },
  keyOnlyTable: (table) => table,
  opaqueValue: <T extends 'text' | 'integer'>(value: unknown, _type: T) =>
    sql<T extends 'text' ? string : number>`${value}`,
  opaqueLimit: (value) => sql<number>`(SELECT ${value}::integer)`,
  testedOnRow: (column) => sql<string>`(${sql.ref(column)} || '')`,
  inSubquery: (column, subquery) => sql`${column} = any(array(${subquery}))`,
  oneStatement: (writes) => {
    if (writes.length === 0) return undefined;
    const last = writes[writes.length - 1];
    if (writes.length === 1) return sql`${last}`;
    const items = writes.slice(0, -1).map((w, i) => sql`${sql.id(statementPart(i))} AS (${w})`);
    return sql`WITH ${sql.join(items)} ${last}`;
  },
  combinesWrites: true,
  statementPart,
  jsonText: (column) => sql<string>`${sql.ref(column)}::text`,
  jsonRecords: (param, columns) => {
    const defs = jsonRecordColumns(columns).map(([name, type]) => sql.raw(`${name} ${PG_RECORD_TYPES[type]}`));
    return sql`(select * from jsonb_to_recordset(${param}::jsonb) as x(${sql.join(defs)}))`;
  },
  inList: (value, list) => sql<SqlBool>`${value} = any(${list})`,
  jsonArrayHasAny: (column, key, values) =>
    sql<SqlBool>`coalesce((${sql.ref(column)} -> ${sql.lit(identifier(key))}) ?| ${[...values]}::text[], false)`,
  leftJoinRow: (qb, table, alias, on) =>
    (qb as SelectQueryBuilder<any, any, any>).leftJoinLateral(
      (eb) => eb.selectFrom(`${table} as ${alias}`).selectAll().where(on).limit(sql.lit(1)).as(alias),
      (join) => join.onTrue(),
    ) as typeof qb,
  joinByKey: (qb, table, alias, key) =>
    (qb as SelectQueryBuilder<any, any, any>).innerJoinLateral(
      (eb) =>
        key
          .reduce(
            (q, [column, record]) => q.whereRef(`k.${column}`, '=', record),
            eb.selectFrom(`${table} as k`).selectAll(),
          )
          .limit(sql.lit(1))
          .as(alias),
      (join) => join.onTrue(),
    ) as typeof qb,
};

const PG_RECORD_TYPES = {
  integer: 'integer',
  bigint: 'bigint',
  double: 'double precision',
  text: 'text',
  list: 'text[]',
  json: 'jsonb',
} as const;

/** Shards of a change counter per key (Dialect.createChangeCounter): server processes share one at 1 in 32. */
const COUNTER_SHARDS = 32;
