import { randomUUID } from 'node:crypto';
import { SignJWT, decodeJwt, jwtVerify, type JWTPayload } from 'jose';
import type { Principal } from '../../../platform/auth/principal.js';
import type { SigningKeys } from './signing-keys.js';
import { ExpiringMap } from '../../../platform/cache/expiring-map.js';
import type { OidcVerifier } from './oidc-verifier.js';
import type { RequestMeta } from '../../../platform/auth/credentials.js';
import type { AuditService } from '../audit/audit.service.js';
import { IDENTITY_ERRORS } from '../identity.errors.js';

export interface TokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
  clockSkewSeconds: number;
}

export interface MintedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

const stringList = (v: unknown): string[] | null =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : null;

/** Mints the platform's access tokens and turns any accepted bearer token into a principal. */
export class TokenService {
  /**
   * Verified tokens by their exact text until they expire: a token string can only ever verify to the same
   * claims, so a hit skips the signature check.
   */
  private readonly cache = new ExpiringMap<string, Principal>(10_000);

  constructor(
    private readonly keys: SigningKeys,
    private readonly settings: TokenSettings,
    private readonly audit: AuditService,
    private readonly oidc?: OidcVerifier,
  ) {}

  /** Mints a token for the caller of a request, from its session or API key, and records it in the audit log. */
  async mintFor(caller: Principal, meta: RequestMeta): Promise<MintedToken> {
    // A token cannot renew itself: minting needs the session or key behind it.
    if (caller.kind === 'token') throw IDENTITY_ERRORS.tokenCannotMintTokens();
    const minted = await this.mint(caller);
    await this.audit.record({
      tenantId: caller.tenantId,
      actor: caller.loginName,
      action: 'token.mint',
      outcome: 'success',
      remoteAddress: meta.ip,
      userAgent: meta.userAgent,
      detail: { via: caller.kind },
    });
    return minted;
  }

  async mint(p: Principal): Promise<MintedToken> {
    const key = await this.keys.current();
    const access_token = await new SignJWT({
      tenant: p.tenant,
      tid: p.tenantId,
      org: p.organisations,
      roles: p.roles,
      rights: p.rights,
      src: p.kind,
    })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.audience)
      .setSubject(p.loginName)
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime(`${this.settings.ttlSeconds}s`)
      .sign(key.privateKey!);
    return { access_token, token_type: 'Bearer', expires_in: this.settings.ttlSeconds };
  }

  /** A principal for a valid token of this platform or of the configured OIDC issuer; null otherwise. */
  async verify(token: string): Promise<Principal | null> {
    const cached = this.cache.get(token);
    if (cached) return cached;
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return null;
    }
    try {
      // The unverified issuer only picks the verifier; the verifier itself enforces the issuer.
      const result =
        this.oidc && unverified.iss === this.oidc.issuer
          ? await this.oidc.verify(token)
          : unverified.iss === this.settings.issuer
            ? await this.verifyOwn(token)
            : null;
      if (result) this.cache.set(token, result.principal, result.expiresAt);
      return result?.principal ?? null;
    } catch {
      return null;
    }
  }

  private async verifyOwn(token: string): Promise<{ principal: Principal; expiresAt: number } | null> {
    const { payload } = await jwtVerify(
      token,
      async (header) => {
        const key = await this.keys.verificationKey(header.kid);
        if (!key || key.alg !== header.alg) throw new Error('unknown signing key');
        return key.publicKey!;
      },
      {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: ['EdDSA', 'ES256'],
        clockTolerance: this.settings.clockSkewSeconds,
        requiredClaims: ['exp', 'iat', 'sub'],
        maxTokenAge: `${this.settings.ttlSeconds + this.settings.clockSkewSeconds}s`,
      },
    );
    const org = stringList(payload.org);
    const roles = stringList(payload.roles);
    const rights = stringList(payload.rights);
    if (typeof payload.tenant !== 'string' || typeof payload.tid !== 'string' || !org || !roles || !rights) return null;
    return {
      principal: {
        kind: 'token',
        tenantId: payload.tid,
        tenant: payload.tenant,
        loginName: payload.sub!,
        organisations: org,
        roles,
        rights,
      },
      expiresAt: payload.exp! * 1000,
    };
  }
}
