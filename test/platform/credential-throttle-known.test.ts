// The credential throttle where one process owns the database (SQLite): a remembered credential's check reads the
// keys once and then answers from what the process knows, and every change of a key makes it read again, so the
// answer stays exact. With several instances (PostgreSQL) every check reads.
import { afterEach, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import {
  CredentialThrottle,
  resolveThrottleSettings,
  SecurityCounters,
  throttleMigrations,
} from '../../src/platform/auth/throttle/index.js';
import { ThrottleRepository } from '../../src/platform/auth/throttle/throttle.repository.js';
import type { ThrottleTables } from '../../src/platform/auth/throttle/throttle.tables.js';
import { migrateToLatest } from '../../src/platform/db/migrations.js';
import type { Database } from '../../src/platform/db/database.js';
import { describeEachEngine, openTestDatabase } from '../helpers/test-app.js';

const SETTINGS = resolveThrottleSettings({
  maxFailuresPerAccountAndAddress: 3,
  maxFailuresPerAccount: 20,
  maxFailuresPerAddress: 50,
  windowSeconds: 300,
  firstWaitSeconds: 30,
  maxWaitSeconds: 900,
  failureResetSeconds: 43200,
});
const SUBJECT = { namespace: 'engine', account: ['eng'], address: '127.0.0.9' };

/** The repository with its reads counted: what a check costs. */
class CountingRepository extends ThrottleRepository {
  reads = 0;
  override async read(keys: readonly string[]) {
    this.reads++;
    return super.read(keys);
  }
}

describeEachEngine('credential throttle: what a check reads', (engine) => {
  let database: Database | undefined;
  afterEach(async () => {
    await database?.destroy();
    database = undefined;
  });

  async function throttleOn(onlyWriter: boolean) {
    database = await openTestDatabase(engine);
    await migrateToLatest(database.db, database.dialect, throttleMigrations);
    const repo = new CountingRepository(database.db as Kysely<ThrottleTables>);
    return { repo, throttle: new CredentialThrottle(repo, SETTINGS, new SecurityCounters(), { onlyWriter }) };
  }

  it('one owner: checks read once, a failure makes the next check read again and refuse when throttled', async () => {
    const { repo, throttle } = await throttleOn(true);
    for (let i = 0; i < 5; i++) expect((await throttle.check(SUBJECT)).allowed).toBe(true);
    expect(repo.reads).toBe(1);
    // Three failures (the pair's budget): each reservation is a change, so the next check reads and refuses.
    for (let i = 0; i < 3; i++) expect((await throttle.reserve(SUBJECT)).allowed).toBe(true);
    const before = repo.reads;
    expect((await throttle.check(SUBJECT)).allowed).toBe(false);
    expect(repo.reads).toBeGreaterThan(before);
    // A success clears the keys: the next check reads again and allows.
    const other = { ...SUBJECT, address: '127.0.0.10' };
    const attempt = await throttle.reserve(other);
    if (!attempt.allowed) throw new Error('refused');
    await attempt.succeeded();
    expect((await throttle.check(other)).allowed).toBe(true);
  });

  it('several instances: every check reads', async () => {
    const { repo, throttle } = await throttleOn(false);
    for (let i = 0; i < 5; i++) expect((await throttle.check(SUBJECT)).allowed).toBe(true);
    expect(repo.reads).toBe(5);
  });
});
