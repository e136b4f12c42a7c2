import { sql, type Kysely } from 'kysely';
import type { IdentityTables } from './identity.tables.js';

/**
 * Failed-login counters per throttle key (a user of a tenant, or a client address). Keys are not tenant rows:
 * a user key embeds its tenant's name, and an address is counted across tenants on purpose.
 */
export class LoginThrottleRepository {
  constructor(private readonly db: Kysely<IdentityTables>) {}

  /** Failures inside the current window for a throttle key. */
  async loginFailures(key: string): Promise<{ failures: number; windowStart: number } | undefined> {
    const row = await this.db
      .selectFrom('login_failures')
      .select(['failures', 'window_start'])
      .where('throttle_key', '=', key)
      .executeTakeFirst();
    return row ? { failures: Number(row.failures), windowStart: Number(row.window_start) } : undefined;
  }

  /** Counts one failure; a window older than `windowStart` restarts at 1. One statement, so it is race-free. */
  async recordLoginFailure(key: string, now: number, windowMs: number): Promise<void> {
    const expired = now - windowMs;
    await this.db
      .insertInto('login_failures')
      .values({ throttle_key: key, failures: 1, window_start: now })
      .onConflict((oc) =>
        oc.column('throttle_key').doUpdateSet({
          failures: sql`case when login_failures.window_start < ${expired} then 1 else login_failures.failures + 1 end`,
          window_start: sql`case when login_failures.window_start < ${expired} then ${now} else login_failures.window_start end`,
        }),
      )
      .execute();
  }

  async deleteStaleLoginFailures(windowStartBefore: number): Promise<void> {
    await this.db.deleteFrom('login_failures').where('window_start', '<', windowStartBefore).execute();
  }

  async clearLoginFailures(key: string): Promise<void> {
    await this.db.deleteFrom('login_failures').where('throttle_key', '=', key).execute();
  }
}
