// The SQL both engines share for storage_value_counts (storage.migrations.ts storage-011): which value rows are
// counted, and the key of a count row.
import { sql, type RawBuilder } from 'kysely';

/** Counted value rows (`alias`): values at the path itself, not array elements, of the exact scalar kinds. */
export const countedRow = (alias: string): RawBuilder<unknown> =>
  sql.raw(`${alias}.elem = 0 and ${alias}.t in (0, 1, 2)`);

/** The key of a count row, its unique index (num and str are null for the other kinds, so coalesced). */
export const COUNT_KEY = sql.raw(`vk, t, (coalesce(num, 0)), (coalesce(str, '')), rs, shard`);
