import type { Generated } from 'kysely';

/** Row shapes of the identity module's tables, as Kysely sees them. JSON columns arrive per dialect. */
export interface TenantRow {
  id: string;
  name: string;
  created_on: number;
  /** 0: deactivated by a platform administrator; its users and keys cannot log in. */
  active: Generated<number>;
}

/** What the config file last applied to a user or key (ProvisioningService); `deleted` once removed over HTTP. */
export interface ProvisionedRow {
  tenant_id: string;
  kind: 'user' | 'apiKey';
  name: string;
  applied: unknown;
  deleted: number;
  updated_on: number;
}

export interface UserRow {
  id: string;
  tenant_id: string;
  login_name: string;
  password_hash: string | null;
  email: string;
  first_name: string;
  last_name: string;
  organisations: unknown;
  inactive_organisations: unknown;
  roles: unknown;
  rights: unknown;
  custom_data: unknown;
  active: number;
  created_on: number;
  updated_on: number;
}

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  name: string;
  key_hash: string;
  organisations: unknown;
  roles: unknown;
  rights: unknown;
  expires_on: number | null;
  created_on: number;
  updated_on: number;
}

export interface SessionRow {
  id_hash: string;
  tenant_id: string;
  user_id: string;
  csrf_token: string;
  remote_address: string;
  user_agent: string;
  created_on: number;
  expires_on: number;
}

export interface SigningKeyRow {
  kid: string;
  alg: string;
  public_jwk: unknown;
  private_jwk: unknown;
  created_on: number;
  sign_until: number;
  verify_until: number;
}

export interface AuditRow {
  id: string;
  tenant_id: string | null;
  at: number;
  actor: string;
  action: string;
  outcome: string;
  remote_address: string;
  user_agent: string;
  detail: unknown;
}

export interface IdentityTables {
  signing_keys: SigningKeyRow;
  audit_log: AuditRow;
  tenants: TenantRow;
  users: UserRow;
  api_keys: ApiKeyRow;
  sessions: SessionRow;
  provisioned: ProvisionedRow;
}

/** A user as the service works with it (JSON decoded). */
export interface User {
  id: string;
  tenantId: string;
  tenant: string;
  loginName: string;
  passwordHash: string | null;
  email: string;
  firstName: string;
  lastName: string;
  organisations: string[];
  inactiveOrganisations: string[];
  roles: string[];
  rights: string[];
  customData: Record<string, unknown>;
  active: boolean;
}

export interface ApiKey {
  id: string;
  tenantId: string;
  tenant: string;
  name: string;
  organisations: string[];
  roles: string[];
  rights: string[];
  expiresOn: number | null;
}
