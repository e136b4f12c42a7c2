import {
  sql,
  type Expression,
  type CreateTableBuilder,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
} from 'kysely';
import type { ListQueryDialect, QueryDialect, WordIndexDialect } from '../../query/query-dialect.js';
import type { DbError } from '../db-errors.js';

// The list-query compiler's view of an engine is declared by platform/query; the dialects implement it (db may import
// query, never the reverse: test/platform/architecture.test.ts).
export type {
  ListQueryDialect,
  QueryColumnType,
  QueryDialect,
  WordIndexDialect,
  WordRow,
} from '../../query/query-dialect.js';

/**
 * Everything that differs between SQLite and PostgreSQL lives behind this interface.
 * Services and repositories never branch on the engine themselves.
 */
export interface Dialect extends ListQueryDialect {
  readonly name: 'sqlite' | 'postgres';
  /** Column type for JSON documents (TEXT on SQLite, jsonb on PostgreSQL). */
  readonly jsonColumnType: 'text' | 'jsonb';
  /** Column type for text compared and sorted in code point order (PostgreSQL: collation "C"; SQLite's default). */
  readonly codePointTextType: RawBuilder<unknown>;
  /** Column type for epoch-millisecond timestamps and other 64-bit integers. */
  readonly bigintColumnType: 'integer' | 'bigint';
  /** Serialises a value for a JSON column. */
  toJson(value: unknown): string;
  /** Reads a JSON column as returned by the driver. */
  fromJson<T>(value: unknown): T;
  /** Reads a boolean column as returned by the driver (SQLite answers 0/1). */
  fromBool(value: unknown): boolean;
  toBool(value: boolean): number | boolean;
  /** The domain error a driver error means (unique violation, write conflict), or undefined when none. */
  toDomainError(err: unknown): DbError | undefined;
  /** The schema that unqualified table names resolve to (PostgreSQL's search_path); undefined on SQLite. */
  currentSchema(db: Kysely<any>): Promise<string | undefined>;
  /** SQL of the list-query compiler: JSON extraction, typed comparison, dates, sorting. */
  readonly query: QueryDialect;
  /** The full-text index of the value index's documents. */
  readonly words: WordIndexDialect;

  /** Adds an auto-incrementing 64-bit integer primary key (SQLite: the rowid; PostgreSQL: an identity column). */
  addSerialPrimaryKey<T extends CreateTableBuilder<any, any>>(table: T, column: string): T;
  /**
   * Keeps a change count (a migration step): creates `counterTable` (the `keys`, a shard, a count) and triggers that
   * add 1 to it whenever rows of `table` are inserted, updated or deleted, in the changing transaction, for the key
   * of each changed row (PostgreSQL: once per statement and key, in a shard of its own per server process, so that
   * concurrent writers of one key do not queue on one row; SQLite: once per row, one shard). `changeCount` reads it
   * (the same on both engines).
   * A reader that finds the count as it was, in its own snapshot, knows that no row of that key changed since.
   */
  createChangeCounter(db: Kysely<any>, spec: ChangeCounter): Promise<void>;
  /**
   * Drops a foreign key whose checks the module's own writes make redundant (a migration step). PostgreSQL checks each
   * inserted row's key with a query of its own (the access rows' and items' keys: a fifth of a batch create's
   * statement); SQLite keeps it: it cannot drop a constraint without copying the table, and its checks are in-process
   * key probes that cost nothing measurable (docs/benchmarks.md, session 16).
   */
  dropForeignKey(db: Kysely<any>, table: string, constraint: string): Promise<void>;
  /**
   * Compresses the column's large values with LZ4 instead of pglz (a migration step): PostgreSQL 14 or later built
   * with it (as the usual packages are; without it the column stays as it was). Inserting 2,000 values of 15 KB took
   * 140 ms against pglz's 390, reading them back 112 against 130 (docs/benchmarks.md, issue 47's fifteenth run). Values
   * stored before keep their compression. SQLite does not compress.
   */
  fastCompression(db: Kysely<any>, table: string, column: string): Promise<void>;
  /** A table that is all key keeps its rows in the primary-key b-tree (SQLite WITHOUT ROWID; PostgreSQL as is). */
  keyOnlyTable<T extends CreateTableBuilder<any, any>>(table: T): T;
  /**
   * A bound value that the planner is not to look at, for statements run many times with new values (prepared by
   * shape): SQLite re-prepares a statement before every run whose plan consulted a bound value (an equality or IN on
   * an indexed column with STAT4 samples, as ANALYZE leaves them in better-sqlite3's build; a LIMIT or an OFFSET), since
   * each run binds it anew. In a CAST the value is opaque to it: the plan is made once, from the average statistics
   * (the notification list: 43% of its statement's instructions were that re-prepare, callgrind). PostgreSQL: as is.
   */
  opaqueValue<T extends 'text' | 'integer'>(value: unknown, type: T): RawBuilder<T extends 'text' ? string : number>;
  /**
   * A LIMIT (an integer) that no plan is made for: a bound limit to the walk's rows (thousands) made PostgreSQL's
   * custom plans, the first five runs of each prepared statement on each connection, read and sort every row of the
   * path (10,000 items: 12-35 ms) where its generic plan walks the index in order (1.4-1.9 ms). PostgreSQL: a scalar
   * subquery (its planner then assumes a tenth of the rows, as for a generic plan); SQLite: opaqueValue.
   */
  opaqueLimit(value: unknown): RawBuilder<number>;
  /**
   * A text column (`alias.column`) that a statement tests on rows found by another key, never seeks in an index.
   * PostgreSQL: `column || ''`, else its planner seeks the row by an index that leads with such columns rather than by
   * the primary key (two text keys compared at each step of each descent: the walk's page, 7-10% of its server CPU);
   * SQLite: the column (it takes the rowid anyway, and the concatenation costs 0.9% of the walk's instructions).
   */
  testedOnRow(column: string): RawBuilder<string>;
  /** `column IN (subquery)` in the form the engine's planner answers by key probes (PostgreSQL: `= ANY(ARRAY(...))`). */
  inSubquery(
    column: RawBuilder<unknown>,
    subquery: SelectQueryBuilder<any, any, any> | RawBuilder<unknown>,
  ): RawBuilder<SqlBool>;
  /**
   * Writes (INSERT, UPDATE, DELETE without RETURNING) as one statement where the engine can (PostgreSQL: data-modifying
   * WITH items, one round trip; every part sees the snapshot from before the statement), or undefined (SQLite: run
   * them one by one, in-process calls cost nothing).
   */
  oneStatement(writes: Array<Expression<unknown> | RawBuilder<unknown>>): RawBuilder<unknown> | undefined;
  /** Whether `oneStatement` combines writes (PostgreSQL) rather than answering undefined (SQLite). */
  readonly combinesWrites: boolean;
  /**
   * The name a part of `oneStatement` has for the parts after it (the first is 0): a part may read an earlier one's
   * RETURNING rows (`FROM <name>`), so that it writes only when that one did, and the last part may be the SELECT
   * that answers them.
   */
  statementPart(index: number): string;
  /**
   * A JSON column as its JSON text, for answers that splice the stored document instead of parsing and
   * re-serialising it (SQLite: the TEXT as stored; PostgreSQL: jsonb's text form).
   */
  jsonText(column: string): RawBuilder<string>;
  /**
   * The objects of a JSON array parameter as a derived table, parenthesised for an alias: one column per entry
   * of `columns`, an `integer` (32-bit), a `bigint`, a `double` (a JSON number as is), a `text`, or a `list` (a JSON array of strings, tested with
   * `inList`), or a `json` (a JSON value, as a JSON column holds it). For one statement that answers many callers at once
   * (a batch of lookups by key, a batch of writes). Column names are identifiers.
   */
  jsonRecords(param: unknown, columns: Record<string, JsonRecordColumn>): RawBuilder<unknown>;
  /** `value` equals one of the strings of a `list` column of `jsonRecords`. */
  inList(value: RawBuilder<unknown>, list: RawBuilder<unknown>): RawBuilder<SqlBool>;
  /**
   * Whether the JSON array at the top-level `key` (an identifier) of the JSON column `column` holds one of `values` (as
   * strings); false without one there.
   */
  jsonArrayHasAny(column: string, key: string, values: readonly string[]): RawBuilder<SqlBool>;
  /**
   * Joins, as `alias`, the row of `table` whose key columns equal columns of the records already in the query
   * (`key`: [table column, record column reference]), by one index probe per record. PostgreSQL: a LATERAL
   * subquery with LIMIT 1, because its planner guesses 100 records for `jsonRecords` and would otherwise hash-join
   * a scan of the whole table whenever the table is small enough; SQLite: a plain join, which it runs that way.
   */
  /**
   * LEFT JOINs, as `alias`, at most one row of `table` that satisfies `on` (which refers to `alias` and to the outer
   * query). PostgreSQL: a LATERAL subquery with LIMIT 1, so each outer row is one index probe whatever the statistics
   * say (with stale ones its planner scans every row of the range per outer row); SQLite: a plain LEFT JOIN.
   */
  leftJoinRow<QB extends SelectQueryBuilder<any, any, any>>(
    qb: QB,
    table: string,
    alias: string,
    on: RawBuilder<SqlBool>,
  ): QB;
  joinByKey<QB extends SelectQueryBuilder<any, any, any>>(
    qb: QB,
    table: string,
    alias: string,
    key: Array<[column: string, recordColumn: string]>,
  ): QB;
}

/** The tables and columns of Dialect.createChangeCounter (identifiers). */
export interface ChangeCounter {
  table: string;
  counterTable: string;
  keys: string[];
}

export type JsonRecordColumn = 'integer' | 'bigint' | 'double' | 'text' | 'list' | 'json';

/** A name that becomes part of SQL text (a JSON key of jsonArrayHasAny), checked. */
export function identifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not an identifier: ${name}`);
  return name;
}

/** The column names of a `jsonRecords` table, checked: they become SQL identifiers and JSON paths. */
export function jsonRecordColumns(columns: Record<string, JsonRecordColumn>): Array<[string, JsonRecordColumn]> {
  const entries = Object.entries(columns);
  for (const [name] of entries) if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a column name: ${name}`);
  return entries;
}

/** The name of a part of Dialect.oneStatement (a WITH item) for the parts after it. */
export const statementPart = (index: number): string => `q__w${index}`;

/** The table of a change counter (Dialect.createChangeCounter): its keys (text), a shard, the count of changes. */
export async function createCounterTable(db: Kysely<any>, counterTable: string, keys: string[]): Promise<void> {
  let table = db.schema.createTable(counterTable);
  for (const key of keys) table = table.addColumn(key, 'text', (c) => c.notNull());
  await table
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('changes', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint(`${counterTable}_pk`, [...keys, 'shard'] as any)
    .execute();
}

/** The change count of a key of Dialect.createChangeCounter (the sum of its shards; 0 before any change), as a subquery. */
export function changeCount(counterTable: string, key: Record<string, unknown>): RawBuilder<unknown> {
  const of = Object.entries(key).map(([k, v]) => sql`q__c.${sql.ref(k)} = ${v}`);
  return sql`(SELECT coalesce(sum(q__c.changes), 0) FROM ${sql.table(counterTable)} q__c WHERE ${sql.join(of, sql` AND `)})`;
}
