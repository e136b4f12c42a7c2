import type { CompiledQuery, Compilable, Kysely } from 'kysely';

const MARK = '\u0000storage-param:';

interface Entry {
  compiled: CompiledQuery;
  /** For each parameter of the compiled query: the index of the argument it takes, or null (a constant). */
  slots: Array<number | null>;
}

/**
 * Builds and compiles each query shape once; a run only swaps in the parameter values. Building a Kysely
 * query costs more than running a small indexed one, and the storage hot paths (read by id, create) run
 * a handful per request. `key` names the shape, including anything that changes the SQL (e.g. list lengths).
 */
export class StatementCache {
  private readonly entries = new Map<string, Entry>();

  async run<Row>(db: Kysely<any>, key: string, build: (p: (index: number) => any) => Compilable<Row>, args: unknown[]): Promise<Row[]> {
    let entry = this.entries.get(key);
    if (!entry) {
      const compiled = build((i) => `${MARK}${i}`).compile();
      const slots = compiled.parameters.map((v) => (typeof v === 'string' && v.startsWith(MARK) ? Number(v.slice(MARK.length)) : null));
      entry = { compiled, slots };
      if (this.entries.size > 500) this.entries.clear();
      this.entries.set(key, entry);
    }
    const { compiled, slots } = entry;
    const parameters = compiled.parameters.map((v, i) => (slots[i] === null ? v : args[slots[i]!]));
    const result = await db.executeQuery<Row>({ ...compiled, parameters } as CompiledQuery<Row>);
    return result.rows;
  }
}
