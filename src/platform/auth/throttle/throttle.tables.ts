/**
 * One throttle key's state: an account, an (account, address) pair or an address. `failures` counts reservations not
 * yet cleared by a success (an attempt counts as failed until it succeeds); nothing here is a tenant row, and keys are
 * hashes, so no user name or address is stored.
 */
export interface CredentialThrottleTable {
  throttle_key: string;
  failures: number;
  /** When the current window (pair, address) or series of failures (account) began. */
  window_start: number;
  /** The row means nothing from this time on (the window ended, or the account was quiet long enough). */
  expires_at: number;
  /** No attempt before this time once the budget is used up (0: none). */
  blocked_until: number;
  /** Attempts refused in the current window (counted, not audited one by one). */
  refused: number;
}

export interface ThrottleTables {
  credential_throttle: CredentialThrottleTable;
}
