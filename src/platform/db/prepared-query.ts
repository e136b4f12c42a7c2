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

interface Prepared<Row> {
  compiled: CompiledQuery<Row>;
  /** For each parameter of the compiled query: the index of the argument it takes, or null (a constant). */
  slots: Array<number | null>;
}

function prepare<Row>(build: (p: Placeholder) => Compilable<Row>): Prepared<Row> {
  const built = build((i) => `${MARK}${i}`).compile();
  const slots = built.parameters.map((v) =>
    typeof v === 'string' && v.startsWith(MARK) ? Number(v.slice(MARK.length)) : null,
  );
  return { compiled: { ...built, runAs: { prepared: true } } as RunAsQuery<Row>, slots };
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
