// The entity tags of the notification list and reads (conditional GETs, platform/http/entity-tag.ts): the tenant's change
// count (notification_changes, kept by triggers in every write's transaction: notifications-002), who the caller is as
// far as seeing goes (list-key.ts), and the request.
import type { Principal } from '../../platform/auth/principal.js';
import { changeCountReader } from '../../platform/db/change-counts.js';
import type { DataAccess } from '../../platform/db/data-access.js';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { entityTag } from '../../platform/http/entity-tag.js';
import { listKey } from './list-key.js';
import { MAX_LIMIT, visibilityOf } from './notification.js';

/** A tag and the change count it was made from (the list cache keys its answers by the count). */
export interface CountedTag {
  tag: string;
  changes: string;
}

export class NotificationTags {
  private readonly changes: (key: readonly string[]) => Promise<string>;

  constructor(data: DataAccess, dialect: Dialect) {
    this.changes = changeCountReader(data, dialect, 'notification_changes', ['tenant_id']);
  }

  /** The tag of a page of the caller's notifications (the limit cut as the list cuts it). */
  async list(p: Principal, start: number, limit: number): Promise<CountedTag> {
    const changes = await this.changes([p.tenantId]);
    return { tag: this.listTag(p, start, limit, changes), changes };
  }

  /** The tag of the page at the change count `changes` (read before the page, or by the same statement). */
  listTag(p: Principal, start: number, limit: number, changes: string): string {
    const who = listKey(visibilityOf(p), start, Math.min(limit, MAX_LIMIT));
    return entityTag(['notifications', p.tenantId, changes, who]);
  }

  /** The tag of a read of one notification by the caller. */
  async notification(p: Principal, id: string): Promise<string> {
    const changes = await this.changes([p.tenantId]);
    return entityTag(['notification', p.tenantId, changes, listKey(visibilityOf(p), 0, 0), id]);
  }
}
