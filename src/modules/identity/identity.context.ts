import type { IdentityService } from './identity.service.js';
import type { SessionService } from './session.service.js';
import type { TokenService } from './tokens/token.service.js';
import type { SigningKeys } from './tokens/signing-keys.js';
import type { AuditService } from './audit/audit.service.js';

/** What the identity routes need; built once in the module's index. */
export interface IdentityContext {
  identity: IdentityService;
  sessions: SessionService;
  tokens: TokenService;
  signingKeys: SigningKeys;
  audit: AuditService;
  cookieName: string;
  sessionTtlSeconds: number;
}
