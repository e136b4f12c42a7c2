import type { IdentityService } from './identity.service.js';
import type { SessionService } from './session.service.js';

/** What the identity routes need; built once in the module's index. */
export interface IdentityContext {
  identity: IdentityService;
  sessions: SessionService;
  cookieName: string;
  sessionTtlSeconds: number;
}
