// The entity tags of the form reads and the list (conditional GETs, platform/http/entity-tag.ts): change counts kept by
// triggers in every write's transaction (forms-002), one per form and one per tenant, and the request. A form's answer
// is the same for every caller of the tenant who may ask for it (the routes' guards decide who may).
import type { Principal } from '../../platform/auth/principal.js';
import { changeCountReader } from '../../platform/db/change-counts.js';
import type { DataAccess } from '../../platform/db/data-access.js';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { entityTag } from '../../platform/http/entity-tag.js';

/** Which answer of a form: the form, its config entry, or every version. */
export type FormAnswer = 'form' | 'config' | 'history';

export class FormTags {
  private readonly ofForm: (key: readonly string[]) => Promise<string>;
  private readonly ofTenant: (key: readonly string[]) => Promise<string>;

  constructor(data: DataAccess, dialect: Dialect) {
    this.ofForm = changeCountReader(data, dialect, 'form_changes', ['tenant_id', 'form_id']);
    this.ofTenant = changeCountReader(data, dialect, 'form_list_changes', ['tenant_id']);
  }

  /** The tag of a read of one form (`version` as the path gives it, if it names one). */
  async form(p: Principal, answer: FormAnswer, formId: string, version?: string): Promise<string> {
    const changes = await this.ofForm([p.tenantId, formId]);
    return entityTag(['form', answer, p.tenantId, formId, version ?? '', changes]);
  }

  /** The tag of the list of the tenant's forms. */
  async list(p: Principal): Promise<string> {
    return entityTag(['forms', p.tenantId, await this.ofTenant([p.tenantId])]);
  }
}
