import type { Principal } from '../../platform/auth/principal.js';
import { hasRole } from '../../platform/auth/principal.js';
import type { RecipientKind } from './notifications.schemas.js';

/** The role that sees and manages every notification of its tenant (decisions.md section 7). */
export const NOTIFICATION_ADMIN = 'NOTIFICATION_ADMIN';
/** The largest page a list answers (a larger limit is cut to it). */
export const MAX_LIMIT = 10_000;

/** A notification as stored: the written fields with their defaults applied. */
export interface StoredNotification {
  id: string;
  priority: number;
  subject: string;
  message?: string;
  recipients: string[];
  recipientsType: RecipientKind;
  originator: string;
  icon?: string;
  type: string;
  typeSpecificData?: Record<string, unknown>;
}

/** As answered: with the server's date (ISO 8601 UTC) and version. */
export interface Notification extends StoredNotification {
  date: string;
  version: number;
}

/** Who may see what: NOTIFICATION_ADMIN everything, others what names them, one of their roles or active organisations. */
export type Visibility = { all: true } | { all: false; user: string; roles: string[]; organisations: string[] };

export function visibilityOf(p: Principal): Visibility {
  if (hasRole(p, NOTIFICATION_ADMIN)) return { all: true };
  return { all: false, user: p.loginName, roles: p.roles, organisations: p.organisations };
}

export function canSee(v: Visibility, n: Pick<StoredNotification, 'recipients' | 'recipientsType'>): boolean {
  if (v.all) return true;
  switch (n.recipientsType) {
    case 'user':
      return n.recipients.includes(v.user);
    case 'role':
      return n.recipients.some((r) => v.roles.includes(r));
    case 'organisation':
      return n.recipients.some((r) => v.organisations.includes(r));
    default:
      return false;
  }
}
