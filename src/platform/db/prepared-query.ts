import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

const MARK = '\u0000svc-param:';

/**
 * Leading comment that marks a statement as worth preparing on the server: the PostgreSQL pool
 * (database.ts) runs such statements as named prepared statements, parsed and planned once per
 * connection. SQLite ignores the comment (its statement cache keys on the whole text).
 */
export const PREPARED_MARK = '/*prepared*/ ';

/**
 * A query built and compiled once, run many times with new parameter values. For hot paths
 * (credential lookups on every request) where Kysely's build-and-compile would cost more than the query.
 * `build` receives placeholders `p(0)`, `p(1)`, ... in place of the values.
 */
export function prepareQuery<Row, Args extends unknown[]>(
  db: Kysely<any>,
  build: (p: (index: number) => any) => Compilable<Row>,
): (...args: Args) => Promise<Row[]> {
  let compiled: CompiledQuery<Row> | undefined;
  let slots: Array<number | null> = [];
  return async (...args: Args) => {
    if (!compiled) {
      const built = build((i) => `${MARK}${i}`).compile();
      compiled = { ...built, sql: PREPARED_MARK + built.sql };
      slots = compiled.parameters.map((v) => (typeof v === 'string' && v.startsWith(MARK) ? Number(v.slice(MARK.length)) : null));
    }
    const base = compiled;
    const parameters = base.parameters.map((v, i) => (slots[i] === null ? v : args[slots[i]!]));
    const result = await db.executeQuery<Row>({ ...base, parameters } as CompiledQuery<Row>);
    return result.rows;
  };
}
