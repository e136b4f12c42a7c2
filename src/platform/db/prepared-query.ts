import { Kysely, type CompiledQuery, type Compilable } from 'kysely';
import type { QueryTarget, RunAsQuery, RunOptions } from './data-access.js';

export type { DirectReader, RunOptions } from './data-access.js';

const MARK = '\u0000svc-param:';

/**
 * The compiled statement, set to answer its rows as arrays of its columns' values in select order, not as objects:
 * both drivers build an object per row property by property, which a page of 100 documents pays on every list
 * (better-sqlite3, 100 rows of 6 columns: 0.154 ms as objects, 0.083 ms as arrays). PostgreSQL: rowMode 'array'
 * (postgres-statements.ts); SQLite: raw mode (sqlite-statements.ts, sqlite-reader-threads.ts).
 */
export function rowsAsArrays<Row extends readonly unknown[]>(compiled: CompiledQuery<unknown>): CompiledQuery<Row> {
  const { runAs } = compiled as RunAsQuery<unknown>;
  return { ...compiled, runAs: { ...runAs, arrays: true } } as RunAsQuery<Row>;
}

/**
 * The compiled statement, set to be prepared on the server (`runAs.prepared`): for statements built once and run
 * many times with new values outside prepareQuery (the storage lists).
 */
export function preparedOnServer<Row>(compiled: CompiledQuery<Row>): CompiledQuery<Row> {
  const { runAs } = compiled as RunAsQuery<Row>;
  if (runAs?.prepared) return compiled;
  return { ...compiled, runAs: { ...runAs, prepared: true } } as RunAsQuery<Row>;
}

type Placeholder = (index: number) => any;

export interface Prepared<Row> {
  compiled: CompiledQuery<Row>;
  /** For each parameter of the compiled query: the index of the argument it takes, or null (a constant). */
  slots: Array<number | null>;
}

function prepare<Row>(build: (p: Placeholder) => Compilable<Row>): Prepared<Row> {
  const built = build((i) => `${MARK}${i}`).compile();
  const slots = built.parameters.map((v) =>
    typeof v === 'string' && v.startsWith(MARK) ? Number(v.slice(MARK.length)) : null,
  );
  return argumentsOnce({ compiled: { ...built, runAs: { prepared: true } } as RunAsQuery<Row>, slots });
}

/**
 * Where the statement numbers its placeholders (PostgreSQL: `$1`, `$2`, ..., each once in order as Kysely compiles
 * them), an argument that it takes in several places is bound once and its number written in each: the notification
 * list takes the tenant in every walk and the same limit in each (35 values bound, 10 distinct), and the server
 * converts, and the driver writes, every value bound. Statements with `?` placeholders (SQLite) are left as they are;
 * so is any whose text holds something this scan does not follow (a dollar-quoted string).
 */
export function argumentsOnce<Row>(prepared: Prepared<Row>): Prepared<Row> {
  const { compiled, slots } = prepared;
  const number: number[] = [];
  const first = new Map<number, number>();
  const parameters: unknown[] = [];
  const kept: Array<number | null> = [];
  compiled.parameters.forEach((value, i) => {
    const slot = slots[i]!;
    const taken = slot === null ? undefined : first.get(slot);
    if (taken !== undefined) {
      number.push(taken);
      return;
    }
    parameters.push(value);
    kept.push(slot);
    number.push(parameters.length);
    if (slot !== null) first.set(slot, parameters.length);
  });
  if (parameters.length === compiled.parameters.length) return prepared;
  const sql = renumberPlaceholders(compiled.sql, number);
  if (sql === undefined) return prepared;
  return { compiled: { ...compiled, sql, parameters } as CompiledQuery<Row>, slots: kept };
}

/**
 * `sql` with its placeholder `$i` written `$number[i - 1]`, or undefined unless it holds `$1` .. `$n` (n =
 * number.length) each once in order outside quoted text and identifiers.
 */
function renumberPlaceholders(sql: string, number: readonly number[]): string | undefined {
  let out = '';
  let from = 0;
  let seen = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      const end = closingQuote(sql, i);
      if (end < 0) return undefined;
      i = end;
    } else if (c === '$') {
      if (i > 0 && /[\w$]/.test(sql[i - 1]!)) continue;
      let end = i + 1;
      while (end < sql.length && sql.charCodeAt(end) >= 48 && sql.charCodeAt(end) <= 57) end++;
      if (end === i + 1 || Number(sql.slice(i + 1, end)) !== seen + 1) return undefined;
      out += `${sql.slice(from, i)}$${number[seen]}`;
      seen++;
      from = end;
      i = end - 1;
    }
  }
  return seen === number.length ? out + sql.slice(from) : undefined;
}

/** The index of the quote that closes the one at `open` (a doubled quote is part of the text), or -1. */
function closingQuote(sql: string, open: number): number {
  const quote = sql[open];
  for (let i = open + 1; i < sql.length; i++) {
    if (sql[i] !== quote) continue;
    if (sql[i + 1] === quote) i++;
    else return i;
  }
  return -1;
}

/**
 * Runs a prepared statement on `target`: through the database's direct reader where its handle has one (SQLite; never
 * a transaction's Kysely, which is a target of its own), else through Kysely.
 */
async function execute<Row>(
  target: QueryTarget,
  { compiled, slots }: Prepared<Row>,
  args: readonly unknown[],
  options: RunOptions = {},
): Promise<Row[]> {
  const parameters = compiled.parameters.map((v, i) => (slots[i] === null ? v : args[slots[i]!]));
  const db = target instanceof Kysely ? target : target.db;
  const direct = target instanceof Kysely ? undefined : target.directReader?.(compiled.sql, parameters, options);
  if (direct) {
    const rows = await direct;
    if (rows) return rows as Row[];
  }
  const result = await db.executeQuery<Row>({ ...compiled, parameters } as CompiledQuery<Row>);
  return result.rows;
}

/**
 * A query built and compiled once, run many times with new parameter values. For hot paths
 * (credential lookups on every request) where Kysely's build-and-compile would cost more than the query.
 * `build` receives placeholders `p(0)`, `p(1)`, ... in place of the values.
 */
export function prepareQuery<Row, Args extends unknown[]>(
  target: QueryTarget,
  build: (p: Placeholder) => Compilable<Row>,
): (...args: Args) => Promise<Row[]> {
  let prepared: Prepared<Row> | undefined;
  return (...args: Args) => execute(target, (prepared ??= prepare(build)), args);
}

/**
 * Prepared queries by shape: `key` names the shape, including anything that changes the SQL (e.g. the
 * length of an IN list), and the first run of a key builds and compiles it.
 */
export class PreparedQueries {
  private readonly entries = new Map<string, Prepared<any>>();

  constructor(private readonly max = 500) {}

  run<Row>(
    target: QueryTarget,
    key: string,
    build: (p: Placeholder) => Compilable<Row>,
    args: readonly unknown[],
    options?: RunOptions,
  ): Promise<Row[]> {
    let entry = this.entries.get(key) as Prepared<Row> | undefined;
    if (!entry) {
      entry = prepare(build);
      if (this.entries.size >= this.max) this.entries.clear();
      this.entries.set(key, entry);
    }
    return execute(target, entry, args, options);
  }

  /**
   * Inserts rows given as one flat list of values (`columns.length` a row, in the columns' order), at most
   * `rowsPerStatement` rows a statement: bound values, one prepared statement per row count (key `key:count`), several
   * times cheaper than a JSON parameter taken apart in SQL.
   */
  async insertRows(
    target: QueryTarget,
    key: string,
    table: string,
    columns: readonly string[],
    values: readonly unknown[],
    rowsPerStatement: number,
  ): Promise<void> {
    const width = columns.length;
    const step = rowsPerStatement * width;
    for (let i = 0; i < values.length; i += step) {
      const chunk = values.slice(i, i + step);
      const count = chunk.length / width;
      const db = target instanceof Kysely ? target : target.db;
      await this.run(
        target,
        `${key}:${count}`,
        (p) =>
          db
            .insertInto(table)
            .values(
              Array.from({ length: count }, (_, n) =>
                Object.fromEntries(columns.map((column, j) => [column, p(n * width + j)])),
              ),
            ),
        chunk,
      );
    }
  }
}
