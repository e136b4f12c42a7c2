import type { Principal } from '../../platform/auth/principal.js';
import { ERRORS } from '../../platform/errors/error-catalogue.js';
import { FORMS_ERRORS } from './forms.errors.js';
import type { FormsRepository } from './forms.repository.js';
import type { StoredForm } from './forms.tables.js';
import {
  DEFINITION_LIMITS,
  exceedsJsonDepth,
  findComponentError,
  parseVersion,
  storedConfigJson,
  type ConfigInput,
  type DefinitionLimits,
} from './form-definition.js';

export interface FormInput {
  name: string;
  config: ConfigInput;
}

export interface DeletedVersions {
  id: string;
  deletedVersions: number[];
}

/** The rules of the forms API: versioning, validation of definitions, not-found answers. Access is checked by the routes. */
export class FormsService {
  constructor(
    private readonly repo: FormsRepository,
    private readonly limits: DefinitionLimits = DEFINITION_LIMITS,
  ) {}

  async latest(p: Principal, formId: string): Promise<StoredForm> {
    const form = await this.repo.findLatest(p.tenantId, formId);
    if (!form) throw FORMS_ERRORS.formNotFound(formId);
    return form;
  }

  /** The given version; the latest one when that version does not exist (or is not a version number at all). */
  async version(p: Principal, formId: string, versionText: string): Promise<StoredForm> {
    const version = parseVersion(versionText);
    const exact = version === null ? undefined : await this.repo.findVersion(p.tenantId, formId, version);
    return exact ?? this.latest(p, formId);
  }

  async history(p: Principal, formId: string): Promise<StoredForm[]> {
    const versions = await this.repo.findHistory(p.tenantId, formId);
    if (versions.length === 0) throw FORMS_ERRORS.formNotFound(formId);
    return versions;
  }

  list(p: Principal): Promise<StoredForm[]> {
    return this.repo.listLatest(p.tenantId);
  }

  /** Add and update alike: a new version, latest + 1 (never a reused number). */
  async save(p: Principal, formId: string, input: FormInput): Promise<StoredForm> {
    if (exceedsJsonDepth(input, this.limits.maxJsonDepth)) {
      throw ERRORS.validation([
        { path: 'body', message: `JSON may be nested at most ${this.limits.maxJsonDepth} levels deep` },
      ]);
    }
    const problem = findComponentError(input.config.components, this.limits);
    if (problem) throw ERRORS.validation([problem]);
    return this.repo.addVersion(p.tenantId, formId, {
      name: input.name,
      config: (version) => storedConfigJson(input.config, formId, version),
      createdBy: p.loginName,
      createdOn: Date.now(),
    });
  }

  async deleteVersion(p: Principal, formId: string, versionText: string): Promise<DeletedVersions> {
    const version = parseVersion(versionText);
    // Well-formed but beyond any version ever issued: it does not exist.
    if (version === null) throw FORMS_ERRORS.versionNotFound(formId, versionText);
    const result = await this.repo.deleteVersion(p.tenantId, formId, version);
    if (result === 'no-form') throw FORMS_ERRORS.formNotFound(formId);
    if (result === 'no-version') throw FORMS_ERRORS.versionNotFound(formId, versionText);
    return { id: formId, deletedVersions: [result.deleted] };
  }

  async deleteForm(p: Principal, formId: string): Promise<DeletedVersions> {
    const deleted = await this.repo.deleteForm(p.tenantId, formId);
    if (!deleted) throw FORMS_ERRORS.formNotFound(formId);
    return { id: formId, deletedVersions: deleted };
  }
}
