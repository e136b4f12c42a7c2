import { randomUUID } from 'node:crypto';
import { ERRORS } from '../../platform/errors/error-catalogue.js';
import { extendObject, jsonIsoDate } from '../../platform/http/json-text.js';
import type { RestCaller } from './rest-auth.js';
import type { Kysely } from 'kysely';
import type { ChangeFeed, FeedCache } from '../../platform/events/index.js';
import type { ItemKind, SharedItemsRepository } from './shared-items.repository.js';
import type { RestTables } from './rest.tables.js';

/** The change feed's topic of shared-data writes; the event's tenant is the scope. */
export const SHARED_ITEMS_TOPIC = 'engine.items';

const MAX_LIMIT = 10_000;

/**
 * Shared data with roles (decisions section 10): process users get what shares a role with them, engine users all.
 * Answers are kept per role set and page until the next write of the scope on any instance (`FeedCache`): clients
 * poll task lists far more often than tasks are created.
 */
export class SharedItemsService {
  constructor(
    private readonly db: Kysely<RestTables>,
    private readonly repo: SharedItemsRepository,
    private readonly scope: string,
    private readonly feed: ChangeFeed,
    private readonly answers: FeedCache,
  ) {}

  async list(caller: RestCaller, kind: ItemKind, start: number, limit: number): Promise<string> {
    const roles = caller.userType === 'processEngineUser' ? 'all' : [...new Set(caller.roles)].sort();
    const page = Math.min(limit, MAX_LIMIT);
    const key = `${kind}\u0001${roles === 'all' ? '*' : roles.join('\u0002')}\u0001${start}\u0001${page}`;
    const kept = this.answers.get(this.scope, key);
    if (kept !== undefined) return kept;
    const generation = this.answers.generation(this.scope);
    const rows = await this.repo.list(this.scope, kind, roles, start, page);
    const text = `[${rows.map((r) => extendObject(r.doc, [['createdOn', jsonIsoDate(Number(r.created_on))]])).join(',')}]`;
    this.answers.set(this.scope, key, generation, text);
    return text;
  }

  /** Process-engine users only (process users: 403). */
  async create(
    caller: RestCaller,
    kind: ItemKind,
    input: { name: string; roles: string[]; data?: Record<string, unknown> },
  ): Promise<string> {
    if (caller.userType !== 'processEngineUser') throw ERRORS.forbidden('Only process-engine users create shared data');
    const roles = [...new Set(input.roles)];
    const doc = JSON.stringify({ id: randomUUID(), name: input.name, roles, data: input.data ?? {} });
    const now = Date.now();
    const event = await this.feed.transaction(this.db, async (trx, publish) => {
      await this.repo.insert(trx, this.scope, kind, JSON.parse(doc).id, doc, roles, now, caller.name);
      return publish({ tenantId: this.scope, topic: SHARED_ITEMS_TOPIC, payload: { kind } });
    });
    // This instance's kept answers go at once; the write answers once this instance has its event.
    this.answers.invalidate(this.scope);
    await this.feed.delivered(event, 2_000);
    return extendObject(doc, [['createdOn', jsonIsoDate(now)]]);
  }
}
