import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Principal } from '../../../platform/auth/principal.js';

export interface OidcSettings {
  issuer: string;
  jwksUrl?: string;
  audience?: string;
  rolesClaim: string;
  rightsClaim: string;
  organisationsClaim: string;
  loginNameClaim: string;
  tenant: string;
  tenantClaim?: string;
  algorithms: string[];
  timeoutMs: number;
  jwksCooldownMs: number;
  clockSkewSeconds: number;
}

/** Reads a dotted claim path (`realm_access.roles`). */
function claim(payload: JWTPayload, path: string): unknown {
  let v: unknown = payload;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

function claimList(payload: JWTPayload, path: string): string[] {
  const v = claim(payload, path);
  if (typeof v === 'string') return v.split(/[\s,]+/).filter(Boolean);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * Verifies tokens of the configured OIDC issuer against its JWKS: fetched with a bounded timeout, cached,
 * and fetched again when a token names an unknown key (jose's remote JWK set, with a cooldown).
 */
export class OidcVerifier {
  private jwks?: JWTVerifyGetKey;

  constructor(
    private readonly settings: OidcSettings,
    private readonly tenantId: (name: string) => Promise<string | undefined>,
  ) {}

  get issuer(): string {
    return this.settings.issuer;
  }

  private async keySet(): Promise<JWTVerifyGetKey> {
    if (this.jwks) return this.jwks;
    let url = this.settings.jwksUrl;
    if (!url) {
      const discovery = `${this.settings.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
      const res = await fetch(discovery, { signal: AbortSignal.timeout(this.settings.timeoutMs) });
      if (!res.ok) throw new Error(`discovery answered ${res.status}`);
      const doc = (await res.json()) as { jwks_uri?: unknown };
      if (typeof doc.jwks_uri !== 'string') throw new Error('discovery document has no jwks_uri');
      url = doc.jwks_uri;
    }
    this.jwks = createRemoteJWKSet(new URL(url), {
      timeoutDuration: this.settings.timeoutMs,
      cooldownDuration: this.settings.jwksCooldownMs,
      cacheMaxAge: 10 * 60_000,
    });
    return this.jwks;
  }

  async verify(token: string): Promise<{ principal: Principal; expiresAt: number } | null> {
    const { payload } = await jwtVerify(token, await this.keySet(), {
      issuer: this.settings.issuer,
      audience: this.settings.audience,
      algorithms: this.settings.algorithms,
      clockTolerance: this.settings.clockSkewSeconds,
      requiredClaims: ['exp'],
    });
    const loginName = claim(payload, this.settings.loginNameClaim) ?? payload.sub;
    const tenantName = this.settings.tenantClaim ? claim(payload, this.settings.tenantClaim) : this.settings.tenant;
    if (typeof loginName !== 'string' || !loginName || typeof tenantName !== 'string') return null;
    const tenantId = await this.tenantId(tenantName);
    if (!tenantId) return null;
    return {
      principal: {
        kind: 'token',
        tenantId,
        tenant: tenantName,
        loginName,
        organisations: claimList(payload, this.settings.organisationsClaim),
        roles: claimList(payload, this.settings.rolesClaim),
        rights: claimList(payload, this.settings.rightsClaim),
      },
      expiresAt: payload.exp! * 1000,
    };
  }
}
