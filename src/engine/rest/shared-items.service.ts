import { randomUUID } from 'node:crypto';
import { ERRORS } from '../../platform/errors/error-catalogue.js';
import { extendObject, jsonIsoDate } from '../../platform/http/json-text.js';
import type { RestCaller } from './rest-auth.js';
import type { ItemKind, SharedItemsRepository } from './shared-items.repository.js';

const MAX_LIMIT = 10_000;

/** Shared data with roles (decisions section 10): process users get what shares a role with them, engine users all. */
export class SharedItemsService {
  constructor(private readonly repo: SharedItemsRepository, private readonly scope: string) {}

  async list(caller: RestCaller, kind: ItemKind, start: number, limit: number): Promise<string> {
    const roles = caller.userType === 'processEngineUser' ? 'all' : caller.roles;
    const rows = await this.repo.list(this.scope, kind, roles, start, Math.min(limit, MAX_LIMIT));
    return `[${rows.map((r) => extendObject(r.doc, [['createdOn', jsonIsoDate(Number(r.created_on))]])).join(',')}]`;
  }

  /** Process-engine users only (process users: 403). */
  async create(caller: RestCaller, kind: ItemKind, input: { name: string; roles: string[]; data?: Record<string, unknown> }): Promise<string> {
    if (caller.userType !== 'processEngineUser') throw ERRORS.forbidden('Only process-engine users create shared data');
    const roles = [...new Set(input.roles)];
    const doc = JSON.stringify({ id: randomUUID(), name: input.name, roles, data: input.data ?? {} });
    const now = Date.now();
    await this.repo.insert(this.scope, kind, JSON.parse(doc).id, doc, roles, now, caller.name);
    return extendObject(doc, [['createdOn', jsonIsoDate(now)]]);
  }
}
