/**
 * Counts of security events that belong in metrics rather than in the audit log, per process. The composition root
 * builds one and hands it to whatever counts; the App exposes it (the operations issue turns it into metrics).
 */
export class SecurityCounters {
  /** Logins for a tenant that does not exist: no tenant could ever read an audit row about them. */
  unknownTenantLogins = 0;
  /** Passwords verified (scrypt) for a login, a Basic credential or a user check; a cache hit is none. */
  passwordVerifications = 0;
  /** Attempts refused by the credential throttle (429): an account, address or pair locked out for a while. */
  throttled = 0;
  /** Password checks that failed (wrong password, unknown or inactive user): logins, user checks, engine Basic. */
  passwordFailures = 0;
}
