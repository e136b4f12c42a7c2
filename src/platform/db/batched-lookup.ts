import type { SelectQueryBuilder } from 'kysely';
import type { DataAccess } from './data-access.js';
import { batchPerTurn } from '../async/turn-batch.js';
import type { Dialect, JsonRecordColumn } from './dialects/dialect.js';
import { PreparedQueries } from './prepared-query.js';

export interface BatchedLookupSpec<In, _Row> {
  /** Names the statement among the prepared ones. */
  name: string;
  /** The columns each input travels as in the records table `r` (besides `n`, its place in the batch). */
  columns: Record<string, JsonRecordColumn>;
  record(input: In): Record<string, unknown>;
  /** The statement over the records `r`: selects `r.n` and at most one row per record. */
  query(records: SelectQueryBuilder<any, any, any>): SelectQueryBuilder<any, any, any>;
  /** Lookups answered by one statement at most (default 500). */
  maxBatch?: number;
}

/**
 * A lookup by key whose calls in one turn of the event loop are answered by one statement: the inputs travel
 * as one JSON parameter (`Dialect.jsonRecords`, aliased `r`), and each call gets the row whose `r.n` is its
 * place in the batch, or undefined. One round trip for a burst of concurrent requests on PostgreSQL; on SQLite
 * the statement runs at once (`RunOptions.batched`).
 */
export function batchedLookup<In, Row>(
  data: DataAccess,
  dialect: Dialect,
  spec: BatchedLookupSpec<In, Row>,
): (input: In) => Promise<Row | undefined> {
  const statements = new PreparedQueries(1);
  const columns = { n: 'integer', ...spec.columns } as const;
  return batchPerTurn<In, Row | undefined>(async (entries) => {
    const records = entries.map(({ input }, n) => ({ ...spec.record(input), n }));
    const rows = await statements.run<Row & { n: number }>(
      data,
      spec.name,
      (p) => spec.query(data.db.selectFrom(dialect.jsonRecords(p(0), columns).as('r'))),
      [JSON.stringify(records)],
      { batched: true },
    );
    const byPlace = new Map(rows.map(({ n, ...row }) => [Number(n), row as Row]));
    entries.forEach((entry, n) => entry.resolve(byPlace.get(n)));
  }, spec.maxBatch ?? 500);
}
