import type { Principal } from './principal.js';

/** Implemented by the identity module; the module list hands it to the credential scope of every platform module. */
export interface CredentialResolver {
  /** Cookie name of the session. */
  readonly sessionCookie: string;
  /** May answer at once (a key whose lookup is cached): API keys are checked on every call of machine clients. */
  fromApiKey(key: string, meta: RequestMeta): Principal | null | Promise<Principal | null>;
  fromSession(sessionId: string, meta: RequestMeta): Promise<Principal | null>;
  /** Access tokens (issue 3); absent until a token verifier is wired in. */
  fromBearer?(token: string, meta: RequestMeta): Promise<Principal | null>;
}

export interface RequestMeta {
  ip: string;
  userAgent: string;
}
