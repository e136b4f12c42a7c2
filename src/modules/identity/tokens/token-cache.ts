import type { Principal } from '../../../platform/auth/principal.js';

/**
 * Verified tokens by their exact text, until they expire. A token string can only ever verify to the
 * same claims, so a hit skips the signature check; an expired entry is never served.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, { principal: Principal; expiresAt: number }>();

  constructor(private readonly max = 10_000) {}

  get(token: string, now = Date.now()): Principal | undefined {
    const e = this.entries.get(token);
    if (!e) return undefined;
    if (e.expiresAt <= now) {
      this.entries.delete(token);
      return undefined;
    }
    return e.principal;
  }

  set(token: string, principal: Principal, expiresAt: number): void {
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { principal, expiresAt });
  }
}
