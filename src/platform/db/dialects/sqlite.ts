import { sql, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { createCounterTable, identifier, jsonRecordColumns, statementPart, type Dialect } from './dialect.js';
import { sqliteQuery } from './query-sqlite.js';
import { sqliteWords } from './words-sqlite.js';
import { UniqueViolation, WriteConflict } from '../db-errors.js';

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  jsonColumnType: 'text',
  codePointTextType: sql`text`,
  bigintColumnType: 'integer',
  toJson: (value) => JSON.stringify(value),
  query: sqliteQuery,
  words: sqliteWords,
  fromJson: <T>(value: unknown): T => (typeof value === 'string' ? (JSON.parse(value) as T) : (value as T)),
  fromBool: (value) => value === 1 || value === true || value === '1',
  toBool: (value) => (value ? 1 : 0),
  toDomainError: (err) => {
    const code = (err as { code?: string })?.code ?? '';
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return new UniqueViolation(err);
    if (code === 'SQLITE_BUSY') return new WriteConflict(err);
    return undefined;
  },
  currentSchema: async () => undefined,
  addSerialPrimaryKey: (table, column) => table.addColumn(column, 'integer', (c) => c.primaryKey()) as typeof table,
  createChangeCounter: async (db, { table, counterTable, keys }) => {
    await createCounterTable(db, counterTable, keys);
    const columns = sql.join(keys.map((k) => sql.ref(k)));
    for (const [event, row] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ] as const) {
      const values = sql.join(keys.map((k) => sql`${sql.raw(row)}.${sql.ref(k)}`));
      await sql`create trigger ${sql.id(`${table}_changes_${event}`)} after ${sql.raw(event)} on ${sql.table(table)} begin
        insert into ${sql.table(counterTable)} (${columns}, shard, changes) values (${values}, 0, 1)
          on conflict (${columns}, shard) do update set changes = changes + 1; end`.execute(db);
    }
  },
  dropForeignKey: async () => {},
  fastCompression: async () => {},
  keyOnlyTable: (table) => table.modifyEnd(sql`without rowid`) as typeof table,
  opaqueValue: <T extends 'text' | 'integer'>(value: unknown, type: T) =>
    sql<T extends 'text' ? string : number>`cast(${value} as ${sql.raw(type)})`,
  opaqueLimit: (value) => sql<number>`cast(${value} as integer)`,
  testedOnRow: (column) => sql<string>`${sql.ref(column)}`,
  inSubquery: (column, subquery) => sql`${column} in (${subquery})`,
  oneStatement: () => undefined,
  combinesWrites: false,
  statementPart,
  jsonText: (column) => sql<string>`${sql.ref(column)}`,
  jsonRecords: (param, columns) => {
    const cols = jsonRecordColumns(columns).map(
      ([name]) => sql`json_extract(value, ${sql.lit(`$.${name}`)}) as ${sql.id(name)}`,
    );
    return sql`(select ${sql.join(cols)} from json_each(${param}))`;
  },
  // A list column holds the JSON text of the array.
  inList: (value, list) => sql<SqlBool>`${value} in (select value from json_each(${list}))`,
  jsonArrayHasAny: (column, key, values) =>
    sql<SqlBool>`exists (select 1 from json_each(${sql.ref(column)}, ${sql.lit(`$.${identifier(key)}`)}) as q__o
      where q__o.type = 'text' and q__o.value in (select value from json_each(${JSON.stringify(values)})))`,
  leftJoinRow: (qb, table, alias, on) =>
    (qb as SelectQueryBuilder<any, any, any>).leftJoin(`${table} as ${alias}`, (join) => join.on(on)) as typeof qb,
  joinByKey: (qb, table, alias, key) =>
    (qb as SelectQueryBuilder<any, any, any>).innerJoin(`${table} as ${alias}`, (join) =>
      key.reduce((j, [column, record]) => j.onRef(`${alias}.${column}`, '=', record), join),
    ) as typeof qb,
};
