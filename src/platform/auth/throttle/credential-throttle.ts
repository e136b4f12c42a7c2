import { sha256Hex } from '../../crypto/secrets.js';
import { SingleFlight } from '../../async/single-flight.js';
import { ERRORS } from '../../errors/error-catalogue.js';
import type { AppError } from '../../errors/app-error.js';
import type { KeyPolicy, ThrottleRepository, ThrottleRow } from './throttle.repository.js';
import type { SecurityCounters } from './security-counters.js';

/** The throttle's settings in seconds and counts, resolved from config (resolveThrottleSettings). */
export interface ThrottleSettings {
  /** Failures of one account from one address per window: the attacker's address is slowed long before the account. */
  maxFailuresPerAccountAndAddress: number;
  /** Failures of one account before its progressive waits begin. */
  maxFailuresPerAccount: number;
  /** Failures from one address across all accounts per window (credential stuffing). */
  maxFailuresPerAddress: number;
  /** The window of the pair and address budgets. */
  windowSeconds: number;
  /** The first wait past the account's budget; each further failure doubles it, up to maxWaitSeconds. */
  firstWaitSeconds: number;
  maxWaitSeconds: number;
  /** An account's failures are forgotten after this long without one. */
  failureResetSeconds: number;
}

/**
 * Whose credential an attempt tries. `namespace` separates kinds of accounts (platform users of a tenant, engine
 * users...), `account` names one exactly as the login compares it (no case folding: `CAROL` is not `carol`).
 * `address` is the client's; absent for a trusted relay (the engine asking for its clients), which throttles
 * addresses itself.
 */
export interface ThrottleSubject {
  namespace: string;
  account: readonly string[];
  address?: string;
}

export type ThrottleKeyKind = 'account' | 'account-address' | 'address';

/** One key that refused an attempt: what the audit log needs to write one row per key and window. */
export interface RefusedKey {
  kind: ThrottleKeyKind;
  /** The key (a hash), with `windowStart` a stable name of this window. */
  key: string;
  windowStart: number;
  /** Attempts this key refused in this window, this one included. */
  refused: number;
  retryAfterSeconds: number;
}

export interface Refusal {
  retryAfterSeconds: number;
  /** The keys that refused, the one that refuses longest first. */
  keys: RefusedKey[];
}

export type Attempt =
  | {
      allowed: true;
      /** The credential verified: the account's failures are cleared. */
      succeeded(): Promise<void>;
      /** No password was checked after all (its checker could not be reached): this reservation is taken back. */
      abandoned(): Promise<void>;
    }
  | { allowed: false; refusal: Refusal; error: AppError };

interface Key {
  kind: ThrottleKeyKind;
  key: string;
  policy: KeyPolicy;
}

/** A refused attempt that would be allowed in a moment still waits at least a second (Retry-After is whole seconds). */
const retrySeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * The credential throttle of every password check (platform login, user check, Basic on /engine/rest and the data
 * management endpoint), after Keycloak's brute-force detection and OWASP's guidance. Each attempt reserves one
 * failure on its keys atomically BEFORE the password is verified, and keeps it unless the attempt succeeds; so of a
 * parallel burst at most the budget is verified, on any number of instances (the database is the only shared state).
 * Keys: the (account, address) pair with a small budget per window, so an attacker's address is stopped long before
 * the account; the account with a larger budget and then waits that double per failure up to a cap (no permanent
 * lockout); the address across accounts. A success clears the account's and the pair's failures and takes back its
 * reservation on the address.
 */
export class CredentialThrottle {
  private purgeTimer?: NodeJS.Timeout;
  private readonly attempts = new SingleFlight<string, unknown>();
  private readonly policies: Record<ThrottleKeyKind, KeyPolicy>;
  /**
   * Where one process owns the database (SQLite), every change of a key passes through this object, so the rows that
   * `check` read are kept until this object changes them (each change forgets its keys): a remembered credential then
   * costs no statement. Several instances (PostgreSQL) read the rows every time.
   */
  private readonly known?: Map<string, ThrottleRow | null>;
  /** Raised by every change: a read that a change overtook is not kept. */
  private changes = 0;

  constructor(
    private readonly repo: ThrottleRepository,
    settings: ThrottleSettings,
    private readonly counters: SecurityCounters,
    options: { onlyWriter?: boolean } = {},
  ) {
    if (options.onlyWriter) this.known = new Map();
    const windowMs = settings.windowSeconds * 1000;
    const waits: number[] = [];
    for (let w = settings.firstWaitSeconds * 1000; w < settings.maxWaitSeconds * 1000 && waits.length < 40; w *= 2)
      waits.push(w);
    waits.push(settings.maxWaitSeconds * 1000);
    this.policies = {
      'account-address': { kind: 'window', budget: settings.maxFailuresPerAccountAndAddress, spanMs: windowMs },
      account: {
        kind: 'progressive',
        budget: settings.maxFailuresPerAccount,
        spanMs: settings.failureResetSeconds * 1000,
        waitsMs: waits,
      },
      address: { kind: 'window', budget: settings.maxFailuresPerAddress, spanMs: windowMs },
    };
  }

  /**
   * Reserves one attempt for the subject before its password is verified: a failure on each key, undone by
   * `succeeded()`. Refused (429) while any key is throttled; then nothing is reserved.
   */
  async reserve(subject: ThrottleSubject, now = Date.now()): Promise<Attempt> {
    const keys = this.keysOf(subject);
    let reserved: Map<string, ThrottleRow> | undefined;
    try {
      reserved = await this.repo.transaction(async (trx) => {
        const rows = new Map<string, ThrottleRow>();
        for (const k of keys) {
          const row = await trx.reserve(k.key, k.policy, now);
          if (!row) throw REFUSED;
          rows.set(k.key, row);
        }
        return rows;
      });
    } catch (err) {
      if (err !== REFUSED) throw err;
    }
    this.changed(keys);
    if (!reserved) return this.refuse(keys, now);
    const rows = reserved;
    return {
      allowed: true,
      succeeded: async () => {
        this.changed(keys);
        await this.repo.clear(keys.filter((k) => k.kind !== 'address').map((k) => k.key));
        const address = keys.find((k) => k.kind === 'address');
        if (address) await this.repo.release(address.key, rows.get(address.key)!.window_start);
        this.changed(keys);
      },
      abandoned: async () => {
        this.changed(keys);
        for (const k of keys) await this.repo.release(k.key, rows.get(k.key)!.window_start);
        this.changed(keys);
      },
    };
  }

  /**
   * Runs `attempt` (reserve, verify, settle) once for concurrent attempts of one subject with one secret: they are
   * one guess, so they share one reservation and one verification and get the same outcome. Without this, a client
   * that opens 50 connections with the right password at once reserved 50 attempts before the first one succeeded,
   * and all but the budget were refused (429). Distinct secrets, or addresses, are distinct attempts as before.
   */
  once<R>(subject: ThrottleSubject, secret: string, attempt: () => Promise<R>): Promise<R> {
    const key = sha256Hex(JSON.stringify([subject.namespace, ...subject.account, subject.address ?? null, secret]));
    return this.attempts.run(key, attempt) as Promise<R>;
  }

  /**
   * For a credential verified moments ago (a cache hit: no new guess is verified): reads the keys without reserving,
   * and refuses while any of them is throttled, so the cache never answers what the throttle would refuse.
   */
  async check(subject: ThrottleSubject, now = Date.now()): Promise<Attempt> {
    const keys = this.keysOf(subject);
    const rows = await this.rowsOf(keys);
    if (!rows.some((r) => refusesFor(r, this.policyOf(keys, r), now) > 0))
      return { allowed: true, succeeded: async () => undefined, abandoned: async () => undefined };
    return this.refuse(keys, now);
  }

  /**
   * An administrator's unlock: forgets the account's failures, from every address, so its next attempt is allowed
   * at once. The addresses' own budgets (credential stuffing across accounts) stay as they are. Answers whether the
   * account was held back by anything.
   */
  async unlock(namespace: string, account: readonly string[]): Promise<boolean> {
    const full = [namespace, ...account];
    this.changed();
    const n = await this.repo.clearAccount(`acct:${keyId(full)}`, pairPrefix(full));
    this.changed();
    return n > 0;
  }

  /** Forgets expired keys now and then; any instance may do it. */
  start(intervalMs = 10 * 60 * 1000): void {
    this.purgeTimer = setInterval(() => void this.purge().catch(() => undefined), intervalMs);
    this.purgeTimer.unref();
  }

  close(): void {
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    this.purgeTimer = undefined;
  }

  purge(now = Date.now()): Promise<number> {
    this.changed();
    return this.repo.deleteExpired(now);
  }

  /** The keys' rows: those this process knows (one owner of the database), the others read (and then known). */
  private async rowsOf(keys: Key[]): Promise<ThrottleRow[]> {
    const known = this.known;
    if (!known) return this.repo.read(keys.map((k) => k.key));
    const missing = keys.filter((k) => !known.has(k.key)).map((k) => k.key);
    if (missing.length > 0) {
      const seen = this.changes;
      const read = await this.repo.read(missing);
      if (seen === this.changes) {
        if (known.size > 10_000) known.clear();
        for (const key of missing) known.set(key, read.find((r) => r.throttle_key === key) ?? null);
      } else {
        return this.repo.read(keys.map((k) => k.key));
      }
    }
    return keys.map((k) => known.get(k.key)).filter((r): r is ThrottleRow => r != null);
  }

  /** Forgets what this process knew of the keys (all of them without keys): they are being changed. */
  private changed(keys?: Key[]): void {
    this.changes++;
    if (!this.known) return;
    if (!keys) this.known.clear();
    else for (const k of keys) this.known.delete(k.key);
  }

  private async refuse(keys: Key[], now: number): Promise<Attempt> {
    this.counters.throttled++;
    const rows = await this.repo.read(keys.map((k) => k.key));
    const refusing = rows.filter((r) => refusesFor(r, this.policyOf(keys, r), now) > 0).map((r) => r.throttle_key);
    this.changed(keys);
    const counted = await this.repo.countRefusals(refusing);
    const refused: RefusedKey[] = counted
      .map((r) => ({
        kind: keys.find((k) => k.key === r.throttle_key)!.kind,
        key: r.throttle_key,
        windowStart: Number(r.window_start),
        refused: Number(r.refused),
        retryAfterSeconds: retrySeconds(refusesFor(r, this.policyOf(keys, r), now)),
      }))
      .sort((a, b) => b.retryAfterSeconds - a.retryAfterSeconds || a.key.localeCompare(b.key));
    // The key may have opened between the refusal and this read: the client still waits a second.
    const retryAfterSeconds = refused[0]?.retryAfterSeconds ?? 1;
    return {
      allowed: false,
      refusal: { retryAfterSeconds, keys: refused },
      error: ERRORS.tooManyRequests(retryAfterSeconds),
    };
  }

  private policyOf(keys: Key[], row: ThrottleRow): KeyPolicy {
    return keys.find((k) => k.key === row.throttle_key)!.policy;
  }

  /** The subject's keys in one fixed order (by key), so that transactions lock rows in the same order everywhere. */
  private keysOf(subject: ThrottleSubject): Key[] {
    const id = (...parts: readonly string[]) => keyId(parts);
    const account = [subject.namespace, ...subject.account];
    const keys: Key[] = [{ kind: 'account', key: `acct:${id(...account)}`, policy: this.policies.account }];
    if (subject.address !== undefined) {
      keys.push({
        kind: 'account-address',
        // Prefixed by the account's hash, so that an unlock finds the account's pairs from every address.
        key: `${pairPrefix(account)}${id(subject.address, ...account)}`,
        policy: this.policies['account-address'],
      });
      keys.push({ kind: 'address', key: `addr:${id(subject.address)}`, policy: this.policies.address });
    }
    return keys.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}

const REFUSED = Symbol('refused');

// Hashed: fixed length, any text (a NUL or a lone surrogate cannot break a statement), no name stored in clear.
const keyId = (parts: readonly string[]) => sha256Hex(JSON.stringify(parts));
const pairPrefix = (account: readonly string[]) => `pair:${keyId(account).slice(0, 32)}:`;

/** How long `row` refuses attempts from `now` under its policy (ms); 0 when it allows one. */
function refusesFor(row: ThrottleRow, policy: KeyPolicy, now: number): number {
  const expires = Number(row.expires_at);
  const blocked = Number(row.blocked_until);
  if (expires <= now || Number(row.failures) < policy.budget || blocked <= now) return 0;
  return Math.min(blocked, expires) - now;
}
