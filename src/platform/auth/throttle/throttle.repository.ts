import { sql, type Kysely, type RawBuilder } from 'kysely';
import { preparedOnServer } from '../../db/prepared-query.js';
import type { CredentialThrottleTable, ThrottleTables } from './throttle.tables.js';

/**
 * How one kind of key counts. `window`: a fixed window of `spanMs` from its first failure; once `budget` failures are
 * in it, no attempt until it ends. `progressive`: a series that lasts until `spanMs` after its latest failure; past
 * `budget` failures each failure blocks the next attempt for `waitsMs[i]` (the last one repeats: the cap).
 */
export interface KeyPolicy {
  kind: 'window' | 'progressive';
  budget: number;
  spanMs: number;
  waitsMs?: readonly number[];
}

export type ThrottleRow = Pick<
  CredentialThrottleTable,
  'throttle_key' | 'failures' | 'window_start' | 'expires_at' | 'blocked_until' | 'refused'
>;

/** Parameters typed for PostgreSQL, which cannot infer a type for a CASE whose branches are all parameters. */
const big = (v: number) => sql`cast(${v} as bigint)`;

/**
 * The throttle's SQL. A reservation is one statement per key (an upsert whose update only happens while the key
 * allows an attempt, RETURNING the new state: no row back means refused), so parallel attempts on any number of
 * instances cannot all pass a check made before any of them counted.
 */
export class ThrottleRepository {
  constructor(private readonly db: Kysely<ThrottleTables>) {}

  /** Runs `work` in one transaction; keys are reserved inside it in one fixed order (no deadlocks on PostgreSQL). */
  transaction<T>(work: (repo: ThrottleRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new ThrottleRepository(trx)));
  }

  /** Counts one attempt against `key` when the policy allows one now; undefined when it does not. */
  async reserve(key: string, policy: KeyPolicy, now: number): Promise<ThrottleRow | undefined> {
    const t = sql.ref('credential_throttle');
    const expired = sql`${t}.expires_at <= ${big(now)}`;
    const next = sql`${t}.failures + 1`;
    let first: number;
    let expiresAt: RawBuilder<unknown>;
    let blocked: RawBuilder<unknown>;
    if (policy.kind === 'window') {
      first = policy.budget <= 1 ? now + policy.spanMs : 0;
      expiresAt = sql`case when ${expired} then ${big(now + policy.spanMs)} else ${t}.expires_at end`;
      blocked = sql`case when ${expired} then ${big(first)} when ${next} >= ${policy.budget} then ${t}.expires_at else ${big(0)} end`;
    } else {
      const waits = policy.waitsMs?.length ? policy.waitsMs : [policy.spanMs];
      first = policy.budget <= 1 ? now + waits[0] : 0;
      // The wait after failure number budget + i is waits[i]; past the list, its last entry (the cap).
      const steps = waits.slice(0, -1).map((w, i) => sql`when ${next} = ${policy.budget + i} then ${big(now + w)}`);
      expiresAt = big(now + policy.spanMs);
      blocked = sql`case when ${expired} then ${big(first)} when ${next} < ${policy.budget} then ${big(0)} ${sql.join(steps, sql` `)} else ${big(now + waits[waits.length - 1])} end`;
    }
    const result = await sql<ThrottleRow>`
      insert into credential_throttle (throttle_key, failures, window_start, expires_at, blocked_until, refused)
      values (${key}, 1, ${big(now)}, ${big(now + policy.spanMs)}, ${big(first)}, 0)
      on conflict (throttle_key) do update set
        failures = case when ${expired} then 1 else ${next} end,
        window_start = case when ${expired} then ${big(now)} else ${t}.window_start end,
        expires_at = ${expiresAt},
        blocked_until = ${blocked},
        refused = case when ${expired} then 0 else ${t}.refused end
      where ${expired} or ${t}.failures < ${policy.budget} or ${t}.blocked_until <= ${big(now)}
      returning throttle_key, failures, window_start, expires_at, blocked_until, refused`.execute(this.db);
    return result.rows[0];
  }

  /**
   * The keys' rows. Prepared on the server (PostgreSQL): a remembered Basic credential reads its keys on every request
   * there, and as an unnamed statement each read was parsed and planned again (0.12 + 0.12 ms of the backend's time,
   * median, for 0.03 ms of execution: the statement log of the asset query benchmark). One text per number of keys.
   */
  async read(keys: readonly string[]): Promise<ThrottleRow[]> {
    if (keys.length === 0) return [];
    const query = this.db
      .selectFrom('credential_throttle')
      .select(['throttle_key', 'failures', 'window_start', 'expires_at', 'blocked_until', 'refused'])
      .where('throttle_key', 'in', keys);
    return (await this.db.executeQuery(preparedOnServer(query.compile()))).rows;
  }

  /** One more refused attempt on each key; answers the keys' new counts. */
  async countRefusals(keys: readonly string[]): Promise<ThrottleRow[]> {
    if (keys.length === 0) return [];
    return this.db
      .updateTable('credential_throttle')
      .set((eb) => ({ refused: eb('refused', '+', 1) }))
      .where('throttle_key', 'in', keys)
      .returning(['throttle_key', 'failures', 'window_start', 'expires_at', 'blocked_until', 'refused'])
      .execute();
  }

  /** Forgets keys (a success clears the account's failures). */
  async clear(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.db.deleteFrom('credential_throttle').where('throttle_key', 'in', keys).execute();
  }

  /** Forgets an account's key and every pair key that starts with `pairPrefix`; answers how many rows went. */
  async clearAccount(accountKey: string, pairPrefix: string): Promise<number> {
    const r = await this.db
      .deleteFrom('credential_throttle')
      .where((eb) => eb.or([eb('throttle_key', '=', accountKey), eb('throttle_key', 'like', `${pairPrefix}%`)]))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Takes back one reservation of `key` made in the window that began at `windowStart` (a success from an address, an attempt never checked). */
  async release(key: string, windowStart: number): Promise<void> {
    await this.db
      .updateTable('credential_throttle')
      .set((eb) => ({ failures: eb('failures', '-', 1) }))
      .where('throttle_key', '=', key)
      .where('window_start', '=', windowStart)
      .where('failures', '>', 0)
      .execute();
  }

  async deleteExpired(now: number): Promise<number> {
    const r = await this.db
      .deleteFrom('credential_throttle')
      .where('expires_at', '<', now)
      .where('blocked_until', '<', now)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
