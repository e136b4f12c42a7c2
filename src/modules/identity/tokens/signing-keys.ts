import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import type { IdentityTables } from '../identity.tables.js';

export interface SigningKey {
  kid: string;
  alg: string;
  publicJwk: JWK;
  signUntil: number;
  verifyUntil: number;
  /** Present only where needed (signing); imported lazily. */
  privateKey?: CryptoKey | Uint8Array;
  publicKey?: CryptoKey | Uint8Array;
}

export interface KeyPolicy {
  algorithm: 'EdDSA' | 'ES256';
  rotationSeconds: number;
  /** Tokens live this long, so a retired key keeps verifying this much longer. */
  tokenTtlSeconds: number;
  clockSkewSeconds: number;
}

/**
 * The platform's signing keys live in the database so every instance signs and verifies with one set.
 * A key signs for `rotationSeconds`; then a new key takes over and the old one stays in the JWKS until the
 * last token it signed has expired.
 */
export class SigningKeys {
  private readonly db: Kysely<IdentityTables>;
  private keys = new Map<string, SigningKey>();
  private loading?: Promise<void>;
  private creating?: Promise<SigningKey>;

  constructor(
    db: Kysely<IdentityTables>,
    private readonly dialect: Dialect,
    private readonly policy: KeyPolicy,
  ) {
    this.db = db;
  }

  /** The key to sign with now; creates one when none is current (any instance may, both stay valid). */
  async current(now = Date.now()): Promise<SigningKey> {
    let key = this.pickCurrent(now);
    if (!key) {
      await this.reload();
      key = this.pickCurrent(now);
    }
    if (!key) {
      this.creating ??= this.create(now).finally(() => (this.creating = undefined));
      key = await this.creating;
    }
    if (!key.privateKey) {
      const row = await this.db
        .selectFrom('signing_keys')
        .select('private_jwk')
        .where('kid', '=', key.kid)
        .executeTakeFirstOrThrow();
      key.privateKey = await importJWK(this.dialect.fromJson<JWK>(row.private_jwk), key.alg);
    }
    return key;
  }

  /** The public key of `kid`; a kid not seen yet (another instance's new key) is looked up by primary key. */
  async verificationKey(kid: string | undefined, now = Date.now()): Promise<SigningKey | undefined> {
    if (!kid || kid.length > 100) return undefined;
    let key = this.keys.get(kid);
    if (!key) {
      const row = await this.db
        .selectFrom('signing_keys')
        .select(['kid', 'alg', 'public_jwk', 'sign_until', 'verify_until'])
        .where('kid', '=', kid)
        .executeTakeFirst();
      if (!row) return undefined;
      key = this.fromRow(row);
      this.keys.set(kid, key);
    }
    if (!key || key.verifyUntil <= now) return undefined;
    key.publicKey ??= await importJWK(key.publicJwk, key.alg);
    return key;
  }

  /** Public keys that still verify: the JWKS document. */
  async jwks(now = Date.now()): Promise<{ keys: JWK[] }> {
    await this.current(now); // a fresh installation publishes its first key at once
    await this.reload();
    return {
      keys: [...this.keys.values()]
        .filter((k) => k.verifyUntil > now)
        .map((k) => ({ ...k.publicJwk, kid: k.kid, alg: k.alg, use: 'sig' })),
    };
  }

  private pickCurrent(now: number): SigningKey | undefined {
    let best: SigningKey | undefined;
    for (const k of this.keys.values()) {
      if (k.signUntil > now && k.alg === this.policy.algorithm && (!best || k.signUntil > best.signUntil)) best = k;
    }
    return best;
  }

  private fromRow(r: {
    kid: string;
    alg: string;
    public_jwk: unknown;
    sign_until: number;
    verify_until: number;
  }): SigningKey {
    return {
      kid: r.kid,
      alg: r.alg,
      publicJwk: this.dialect.fromJson<JWK>(r.public_jwk),
      signUntil: Number(r.sign_until),
      verifyUntil: Number(r.verify_until),
    };
  }

  private async reload(): Promise<void> {
    this.loading ??= (async () => {
      const rows = await this.db
        .selectFrom('signing_keys')
        .select(['kid', 'alg', 'public_jwk', 'sign_until', 'verify_until'])
        .where('verify_until', '>', Date.now())
        .execute();
      const next = new Map<string, SigningKey>();
      for (const r of rows) {
        const known = this.keys.get(r.kid);
        next.set(r.kid, known ?? this.fromRow(r));
      }
      this.keys = next;
    })().finally(() => (this.loading = undefined));
    await this.loading;
  }

  private async create(now: number): Promise<SigningKey> {
    const alg = this.policy.algorithm;
    const { publicKey, privateKey } = await generateKeyPair(alg, {
      extractable: true,
      ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}),
    });
    const publicJwk = await exportJWK(publicKey);
    const privateJwk = await exportJWK(privateKey);
    const signUntil = now + this.policy.rotationSeconds * 1000;
    const verifyUntil = signUntil + (this.policy.tokenTtlSeconds + this.policy.clockSkewSeconds) * 1000;
    const kid = randomUUID();
    await this.db
      .insertInto('signing_keys')
      .values({
        kid,
        alg,
        public_jwk: this.dialect.toJson(publicJwk),
        private_jwk: this.dialect.toJson(privateJwk),
        created_on: now,
        sign_until: signUntil,
        verify_until: verifyUntil,
      })
      .execute();
    const key: SigningKey = { kid, alg, publicJwk, signUntil, verifyUntil, privateKey, publicKey };
    this.keys.set(kid, key);
    return key;
  }

  /** Drops keys that no longer verify anything. */
  async purge(now = Date.now()): Promise<void> {
    await this.db.deleteFrom('signing_keys').where('verify_until', '<=', now).execute();
  }
}
