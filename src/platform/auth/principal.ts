/** Who is calling, resolved once per request from a session, an API key or an access token. */
export interface Principal {
  kind: 'session' | 'apiKey' | 'token';
  tenantId: string;
  tenant: string;
  loginName: string;
  /** Active organisations only: inactive ones grant nothing. */
  organisations: string[];
  roles: string[];
  rights: string[];
  /** Set for sessions: the CSRF token that POST, PUT and DELETE must echo. */
  csrfToken?: string;
  /** Set for sessions: the stored (hashed) session id. */
  sessionKey?: string;
  userId?: string;
}

export const hasRole = (p: Principal, role: string) => p.roles.includes(role);
export const hasRight = (p: Principal, right: string) => p.rights.includes(right);

/** True when the principal holds the role or any of the rights. */
export function hasRoleOrRight(p: Principal, role: string, ...rights: string[]): boolean {
  return hasRole(p, role) || rights.some((r) => hasRight(p, r));
}
