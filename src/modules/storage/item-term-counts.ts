// Kept counts of the words index (storage_term_counts, storage-012): how many items of each reader set hold a word,
// kept by the module's writes in the item's transaction (SQLite's FTS5 table has no triggers), so that the total of a
// list whose query is one bare word is a sum over the caller's reader sets (platform/query kept-total.ts). A words
// row counts from its insert to its delete, +1 per distinct word under its item's reader set (storage_items.rs).
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { PreparedQueries } from '../../platform/db/prepared-query.js';
import type { StorageSql } from './dialects/index.js';
import type { StorageTables } from './storage.tables.js';

type Db = Kysely<StorageTables>;

/**
 * Count rows one statement adds to at most; statements hold a power of two of them, so that a few prepared shapes
 * (1, 2, 4 .. 256 rows) serve every batch.
 */
const ROWS_PER_STATEMENT_MAX = 256;

/** The words of an item as the words index holds them (distinct), and its reader set. */
export interface CountedWords {
  rs: number;
  words: readonly string[];
}

export class ItemTermCounts {
  constructor(
    private readonly storageSql: StorageSql,
    private readonly statements: PreparedQueries,
  ) {}

  /** Adds the items' words to the counts, in the caller's transaction: grouped per (word, reader set), in key order. */
  async add(trx: Db, items: readonly CountedWords[]): Promise<void> {
    const byKey = new Map<string, { term: string; rs: number; n: number }>();
    for (const { rs, words } of items) {
      for (const term of words) {
        const key = `${term}\u0000${rs}`;
        const row = byKey.get(key);
        if (row) row.n++;
        else byKey.set(key, { term, rs, n: 1 });
      }
    }
    if (byKey.size === 0) return;
    // In the primary key's order (term, rs), as the engine's other statements on the counts: two transactions of one
    // shard (PostgreSQL) then lock the rows they share in the same order.
    const rows = [...byKey.values()].sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : a.rs - b.rs));
    for (let at = 0; at < rows.length; ) {
      let size = ROWS_PER_STATEMENT_MAX;
      while (size > rows.length - at) size >>= 1;
      const chunk = rows.slice(at, at + size);
      at += size;
      await this.statements.run(
        trx,
        `add-term-counts:${size}`,
        (p) =>
          trx
            .insertInto('storage_term_counts')
            .values(
              chunk.map((_, n) => ({
                term: p(3 * n),
                rs: p(3 * n + 1),
                shard: this.storageSql.termShard,
                n: p(3 * n + 2),
              })),
            )
            .onConflict((oc) =>
              oc.columns(['term', 'rs', 'shard']).doUpdateSet({ n: sql`storage_term_counts.n + excluded.n` }),
            ),
        chunk.flatMap((r) => [r.term, r.rs, r.n]),
      );
    }
  }

  /** Takes the item's words row out of the counts (StorageSql.forgetTerms); before the row goes or its reader set changes. */
  async forget(trx: Db, seq: number): Promise<void> {
    await this.storageSql.forgetTerms(seq).execute(trx);
  }
}
