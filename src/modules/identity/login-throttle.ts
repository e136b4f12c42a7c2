import { IDENTITY_ERRORS } from './identity.errors.js';
import type { LoginThrottleRepository } from './login-throttle.repository.js';

export interface ThrottleSettings {
  maxFailuresPerUser: number;
  maxFailuresPerAddress: number;
  windowSeconds: number;
}

/**
 * Counts failed logins per user and per client address in the database (so every instance sees them)
 * and answers 429 once a key has used up its failures for the current window.
 */
export class LoginThrottle {
  constructor(private readonly repo: LoginThrottleRepository, private readonly settings: ThrottleSettings) {}

  static userKey = (tenant: string, loginName: string) => `user:${tenant.toLowerCase()}/${loginName.toLowerCase()}`;
  static addressKey = (ip: string) => `addr:${ip}`;

  /** Throws 429 when either key is over its limit. */
  async assertAllowed(userKey: string, addressKey: string, now = Date.now()): Promise<void> {
    const windowMs = this.settings.windowSeconds * 1000;
    const checks: Array<[string, number]> = [
      [userKey, this.settings.maxFailuresPerUser],
      [addressKey, this.settings.maxFailuresPerAddress],
    ];
    for (const [key, max] of checks) {
      const state = await this.repo.loginFailures(key);
      if (state && state.windowStart > now - windowMs && state.failures >= max) {
        throw IDENTITY_ERRORS.loginThrottled(Math.max(1, Math.ceil((state.windowStart + windowMs - now) / 1000)));
      }
    }
  }

  async recordFailure(userKey: string, addressKey: string, now = Date.now()): Promise<void> {
    const windowMs = this.settings.windowSeconds * 1000;
    await this.repo.recordLoginFailure(userKey, now, windowMs);
    await this.repo.recordLoginFailure(addressKey, now, windowMs);
  }

  async recordSuccess(userKey: string): Promise<void> {
    await this.repo.clearLoginFailures(userKey);
  }

  /** Forgets windows that started before `windowStartBefore`; runs on the purge timer. */
  purge(windowStartBefore: number): Promise<void> {
    return this.repo.deleteStaleLoginFailures(windowStartBefore);
  }
}
