// The credential throttle shared by every password check of the platform and the engine (platform/auth, since the
// engine may run without the platform): its table, its rules, and the process's security counters.
import type { Kysely } from 'kysely';
import { CredentialThrottle, type ThrottleSettings } from './credential-throttle.js';
import { ThrottleRepository } from './throttle.repository.js';
import type { ThrottleTables } from './throttle.tables.js';
import type { SecurityCounters } from './security-counters.js';

export { throttleMigrations } from './throttle.migrations.js';
export { SecurityCounters } from './security-counters.js';
export {
  CredentialThrottle,
  type Attempt,
  type Refusal,
  type RefusedKey,
  type ThrottleSettings,
  type ThrottleSubject,
} from './credential-throttle.js';

/** `identity.loginThrottle` as the config file has it, including the keys of earlier versions. */
export interface ThrottleConfig {
  maxFailuresPerAccountAndAddress?: number;
  maxFailuresPerAccount?: number;
  /** Earlier name of maxFailuresPerAccount (failures of one user from any address). */
  maxFailuresPerUser?: number;
  maxFailuresPerAddress: number;
  windowSeconds: number;
  firstWaitSeconds: number;
  maxWaitSeconds: number;
  failureResetSeconds: number;
}

const DEFAULT_PER_ACCOUNT = 20;
const DEFAULT_PER_ACCOUNT_AND_ADDRESS = 5;

/**
 * The settings from config: `maxFailuresPerUser` (earlier versions) is the account's budget unless
 * `maxFailuresPerAccount` is set; the pair's budget defaults to 5, never more than the account's; an account's
 * failures are kept at least as long as its longest wait.
 */
export function resolveThrottleSettings(c: ThrottleConfig): ThrottleSettings {
  const perAccount = c.maxFailuresPerAccount ?? c.maxFailuresPerUser ?? DEFAULT_PER_ACCOUNT;
  const maxWaitSeconds = Math.max(c.maxWaitSeconds, c.firstWaitSeconds);
  return {
    maxFailuresPerAccount: perAccount,
    maxFailuresPerAccountAndAddress:
      c.maxFailuresPerAccountAndAddress ?? Math.min(DEFAULT_PER_ACCOUNT_AND_ADDRESS, perAccount),
    maxFailuresPerAddress: c.maxFailuresPerAddress,
    windowSeconds: c.windowSeconds,
    firstWaitSeconds: c.firstWaitSeconds,
    maxWaitSeconds,
    failureResetSeconds: Math.max(c.failureResetSeconds, maxWaitSeconds),
  };
}

export function createCredentialThrottle(
  db: Kysely<any>,
  config: ThrottleConfig,
  counters: SecurityCounters,
  options: { onlyWriter?: boolean } = {},
): CredentialThrottle {
  return new CredentialThrottle(
    new ThrottleRepository(db as Kysely<ThrottleTables>),
    resolveThrottleSettings(config),
    counters,
    options,
  );
}
