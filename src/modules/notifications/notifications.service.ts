import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Principal } from '../../platform/auth/principal.js';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { isUniqueViolation } from '../../platform/db/db-errors.js';
import type { ChangeFeed } from '../../platform/events/index.js';
import { notificationJson } from './notification-json.js';
import { ERRORS } from '../../platform/errors/error-catalogue.js';
import { NOTIFICATION_ERRORS } from './notifications.errors.js';
import { NOTIFICATION_TOPIC } from './notification-topic.js';
import { listKey } from './list-key.js';
import type { NotificationTags } from './notification-tags.js';
import { noneMatchHits, type TaggedText } from '../../platform/http/entity-tag.js';
import type { FeedCache } from '../../platform/events/index.js';
import type { FeedEvent } from '../../platform/events/index.js';
import type { NotificationRow, NotificationsRepository } from './notifications.repository.js';
import type { NotificationInput } from './notifications.schemas.js';
import type { NotificationsTables } from './notifications.tables.js';
import {
  MAX_LIMIT,
  visibilityOf,
  type Notification,
  type StoredNotification,
  type Visibility,
} from './notification.js';

export { NOTIFICATION_TOPIC };

/** What a `notification` event of the change feed carries. `previous` is set on updates: who saw it before. */
export interface NotificationEvent {
  action: 'add' | 'update' | 'delete';
  notification: Notification;
  previous?: Notification;
}

/** The rules of the notification API (decisions.md section 7); every write publishes its event in its transaction. */
export class NotificationsService {
  constructor(
    private readonly db: Kysely<NotificationsTables>,
    private readonly repo: NotificationsRepository,
    private readonly feed: ChangeFeed,
    private readonly dialect: Dialect,
    private readonly lists: FeedCache,
    private readonly tags: NotificationTags,
  ) {}

  /**
   * After a write's commit: this instance's list answers of the tenant go at once, and the write answers once this
   * instance has its event (the server sends it to every instance together), so its caller reads its own write.
   */
  private async written(event: FeedEvent): Promise<void> {
    this.lists.invalidate(event.tenantId);
    await this.feed.delivered(event, 2_000);
  }

  async add(caller: Principal, input: NotificationInput): Promise<string> {
    const stored = normalise(input, input.id ?? randomUUID(), input.originator ?? caller.loginName);
    const doc = JSON.stringify(stored);
    const date = Date.now();
    try {
      const event = await this.feed.transaction(this.db, async (trx, publish) => {
        await this.repo.insert(trx, caller.tenantId, stored, doc, date);
        return publish({
          tenantId: caller.tenantId,
          topic: NOTIFICATION_TOPIC,
          payload: { action: 'add', notification: answer(stored, date, 1) },
        });
      });
      await this.written(event);
    } catch (err) {
      if (isUniqueViolation(err, this.dialect)) throw NOTIFICATION_ERRORS.exists(stored.id);
      throw err;
    }
    return notificationJson({ doc, date, version: 1 });
  }

  /** Replaces the notification's fields; `originator` stays the original one unless the body names another. */
  async update(caller: Principal, id: string, input: NotificationInput): Promise<string> {
    if (input.id !== undefined && input.id !== id) throw NOTIFICATION_ERRORS.idMismatch(id, input.id);
    const { event, text } = await this.feed.transaction(this.db, async (trx, publish) => {
      const current = await this.repo.lock(trx, caller.tenantId, id);
      if (!current) throw NOTIFICATION_ERRORS.notFound(id);
      const before = JSON.parse(current.doc) as StoredNotification;
      const stored = normalise(input, id, input.originator ?? before.originator);
      const doc = JSON.stringify(stored);
      const date = Math.max(Date.now(), current.date + 1);
      const version = current.version + 1;
      await this.repo.update(trx, caller.tenantId, current.seq, before, stored, doc, date, version);
      const event = await publish({
        tenantId: caller.tenantId,
        topic: NOTIFICATION_TOPIC,
        payload: {
          action: 'update',
          notification: answer(stored, date, version),
          previous: answer(before, current.date, current.version),
        },
      });
      return { event, text: notificationJson({ doc, date, version }) };
    });
    await this.written(event);
    return text;
  }

  async delete(caller: Principal, id: string): Promise<string> {
    const { event, text } = await this.feed.transaction(this.db, async (trx, publish) => {
      const row = await this.repo.delete(trx, caller.tenantId, id);
      if (!row) throw NOTIFICATION_ERRORS.notFound(id);
      const notification = answer(JSON.parse(row.doc), row.date, row.version);
      const event = await publish({
        tenantId: caller.tenantId,
        topic: NOTIFICATION_TOPIC,
        payload: { action: 'delete', notification },
      });
      return { event, text: notificationJson(row) };
    });
    await this.written(event);
    return text;
  }

  /** 404 both when it does not exist and when the caller may not see it (interface-spec, Errors 3). */
  async get(caller: Principal, id: string): Promise<string> {
    const row = await this.repo.get(caller.tenantId, id, visibilityOf(caller));
    if (!row) throw NOTIFICATION_ERRORS.notFound(id);
    return notificationJson(row);
  }

  /**
   * A conditional list (platform/http/entity-tag.ts): the page's tag, and its JSON text unless `ifNoneMatch` names the
   * tag (then the answer is 304 and no page is read). Where neither `If-None-Match` nor a kept answer can spare the page
   * (the first list after a write), the tenant's change count is read by the page's own statement, so the tag is
   * exactly the answer's; else the count is read first (notification-tags.ts) and a kept answer serves when it was kept
   * at that count.
   */
  async list(caller: Principal, start: number, limit: number, ifNoneMatch?: string | string[]): Promise<TaggedText> {
    const visibility = visibilityOf(caller);
    const page = Math.min(limit, MAX_LIMIT);
    const key = listKey(visibility, start, page);
    const kept = this.kept(caller.tenantId, key);
    if (ifNoneMatch === undefined && kept === undefined) {
      const { changes, text } = await this.read(caller.tenantId, visibility, start, page, key);
      return { tag: this.tags.listTag(caller, start, page, changes), text };
    }
    const { tag, changes } = await this.tags.list(caller, start, page);
    if (noneMatchHits(ifNoneMatch, tag)) return { tag };
    // Kept answers are reused only under the count they were read at: one kept before a write that this instance has
    // not heard of yet is not reused under the count that the write made.
    const again = this.kept(caller.tenantId, key);
    if (again !== undefined && again.changes === changes) return { tag, text: again.text };
    return { tag, text: (await this.read(caller.tenantId, visibility, start, page, key)).text };
  }

  /** The page from the database, kept (with the change count its statement read) for the lists after it. */
  private async read(
    tenantId: string,
    visibility: Visibility,
    start: number,
    page: number,
    key: string,
  ): Promise<{ changes: string; text: string }> {
    const generation = this.lists.generation(tenantId);
    const { total, rows, changes } = await this.repo.list(tenantId, visibility, start, page);
    const text = listText(total, rows);
    this.lists.set(tenantId, key, generation, `${changes}\u0001${text}`);
    return { changes, text };
  }

  private kept(tenantId: string, key: string): { changes: string; text: string } | undefined {
    const kept = this.lists.get(tenantId, key);
    if (kept === undefined) return undefined;
    const cut = kept.indexOf('\u0001');
    return { changes: kept.slice(0, cut), text: kept.slice(cut + 1) };
  }
}

function listText(total: number, rows: NotificationRow[]): string {
  return `{"total":${total},"items":[${rows.map(notificationJson).join(',')}]}`;
}

/** The stored form of a written notification: the spec's defaults applied, unknown members dropped, recipients once each. */
export function normalise(input: NotificationInput, id: string, originator: string): StoredNotification {
  const type = input.type ?? 'info';
  if (type === 'link' && input.typeSpecificData !== undefined) assertLinkData(input.typeSpecificData);
  const n: StoredNotification = {
    id,
    priority: input.priority ?? 5,
    subject: input.subject,
    ...(input.message !== undefined ? { message: input.message } : {}),
    recipients: [...new Set(input.recipients)],
    recipientsType: input.recipientsType,
    originator,
    ...(input.icon !== undefined ? { icon: input.icon } : {}),
    type,
    ...(input.typeSpecificData !== undefined ? { typeSpecificData: input.typeSpecificData } : {}),
  };
  return n;
}

/** Type link points into the GUI: `targetModule` a string and `route` a list of strings (interface-spec, Notification). */
function assertLinkData(data: Record<string, unknown>): void {
  const errors = [];
  if (data.targetModule !== undefined && typeof data.targetModule !== 'string')
    errors.push({ path: '/typeSpecificData/targetModule', message: 'must be string' });
  if (data.route !== undefined && !(Array.isArray(data.route) && data.route.every((r) => typeof r === 'string'))) {
    errors.push({ path: '/typeSpecificData/route', message: 'must be an array of strings' });
  }
  if (errors.length) throw ERRORS.validation(errors);
}

function answer(n: StoredNotification, date: number, version: number): Notification {
  return { ...n, date: new Date(date).toISOString(), version };
}
