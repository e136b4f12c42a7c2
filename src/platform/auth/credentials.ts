import type { Principal } from './principal.js';

/** Implemented by the identity module and handed to the auth plugin at the composition root. */
export interface CredentialResolver {
  /** Cookie name of the session. */
  readonly sessionCookie: string;
  fromApiKey(key: string, meta: RequestMeta): Promise<Principal | null>;
  fromSession(sessionId: string, meta: RequestMeta): Promise<Principal | null>;
  /** Access tokens (issue 3); absent until a token verifier is wired in. */
  fromBearer?(token: string, meta: RequestMeta): Promise<Principal | null>;
}

export interface RequestMeta {
  ip: string;
  userAgent: string;
}
