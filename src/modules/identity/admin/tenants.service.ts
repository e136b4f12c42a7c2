import type { Principal } from '../../../platform/auth/principal.js';
import type { AuditEntry } from '../../../platform/audit/audit-trail.js';
import { hashPassword } from '../../../platform/crypto/secrets.js';
import { IDENTITY_ERRORS } from '../identity.errors.js';
import { TENANT_ADMIN } from '../identity.service.js';
import type { SessionEndings } from '../session-endings.js';
import type { KeyRevocations } from '../key-revocations.js';
import type { AdminRepository, AdminTenant } from './admin.repository.js';

/** A platform administrator, as the config file names one (`identity.platformAdmins`). */
export interface PlatformAdmin {
  tenant: string;
  loginName: string;
}

export interface TenantsDeps {
  repo: AdminRepository;
  platformAdmins: readonly PlatformAdmin[];
  audit: { record(entry: AuditEntry): Promise<void> };
  endings?: SessionEndings;
  revocations?: KeyRevocations;
  forgetSessions(tenantId: string): void;
  forgetApiKeys(): void;
}

/**
 * Tenants, for the platform's administrators only: users named in the config file (never an API key, whose name a
 * tenant administrator chooses). A deactivated tenant's users cannot log in, its sessions end and its keys stop.
 */
export class TenantsService {
  constructor(private readonly d: TenantsDeps) {}

  isPlatformAdmin(p: Principal): boolean {
    return (
      p.kind !== 'apiKey' && this.d.platformAdmins.some((a) => a.tenant === p.tenant && a.loginName === p.loginName)
    );
  }

  list(start: number, limit: number) {
    return this.d.repo.listTenants(start, limit);
  }

  async get(name: string): Promise<AdminTenant> {
    const t = await this.d.repo.findTenant(name);
    if (!t) throw IDENTITY_ERRORS.tenantNotFound(name);
    return t;
  }

  /** A new tenant, with its first administrator (role TENANT_ADMIN) when one is given: one transaction. */
  async create(
    caller: Principal,
    name: string,
    firstAdmin: { loginName: string; password: string } | undefined,
    meta: { ip: string; userAgent: string },
  ): Promise<AdminTenant> {
    if (await this.d.repo.findTenant(name)) throw IDENTITY_ERRORS.tenantExists(name);
    const passwordHash = firstAdmin ? await hashPassword(firstAdmin.password) : undefined;
    await this.d.repo.transaction(async (trx) => {
      const id = await this.d.repo.insertTenant(name, trx);
      if (firstAdmin)
        await this.d.repo.insertUser(id, firstAdmin.loginName, { passwordHash, roles: [TENANT_ADMIN] }, trx);
    });
    const t = await this.get(name);
    await this.record(
      caller,
      t.id,
      'admin.tenant.create',
      { tenant: name, admin: firstAdmin?.loginName ?? null },
      meta,
    );
    return t;
  }

  /** Deactivates (ending its sessions and stopping its keys on every instance) or reactivates a tenant. */
  async setActive(
    caller: Principal,
    name: string,
    active: boolean,
    meta: { ip: string; userAgent: string },
  ): Promise<AdminTenant> {
    const t = await this.get(name);
    if (!active && t.id === caller.tenantId) throw IDENTITY_ERRORS.notOnYourself('deactivate');
    if (active) await this.d.repo.setTenantActive(t.id, true);
    else {
      // The keys first (the flag and the caches' event in one transaction), then the sessions on every instance.
      if (this.d.revocations)
        await this.d.revocations.revoke(t.id, (trx) => this.d.repo.setTenantActive(t.id, false, trx));
      else await this.d.repo.setTenantActive(t.id, false);
      this.d.forgetApiKeys();
      if (this.d.endings) await this.d.endings.endTenant(t.id);
      this.d.forgetSessions(t.id);
    }
    await this.record(
      caller,
      t.id,
      active ? 'admin.tenant.activate' : 'admin.tenant.deactivate',
      { tenant: name },
      meta,
    );
    return this.get(name);
  }

  /** In the tenant changed, with the platform administrator named by tenant and login. */
  private record(
    caller: Principal,
    tenantId: string,
    action: string,
    detail: Record<string, unknown>,
    meta: { ip: string; userAgent: string },
  ): Promise<void> {
    return this.d.audit.record({
      tenantId,
      actor: `${caller.tenant}/${caller.loginName}`,
      action,
      outcome: 'success',
      remoteAddress: meta.ip,
      userAgent: meta.userAgent,
      detail,
    });
  }
}
