import type { Generated } from 'kysely';
import type { EventsTables } from '../../platform/events/index.js';

export interface NotificationsTable {
  seq: Generated<number>;
  tenant_id: string;
  id: string;
  /** The notification as written, defaults applied, without date and version: JSON text spliced into answers. */
  doc: string;
  /** Epoch milliseconds of the add or of the last update. */
  date: number;
  version: number;
}

/** One row per recipient: the index that makes "which notifications may this caller see" a range lookup. */
export interface NotificationRecipientsTable {
  tenant_id: string;
  /** recipientsType: user, role or organisation. */
  kind: string;
  name: string;
  /** The notification's date, copied: the list's order, read from this table's key without the documents. */
  date: number;
  notification_seq: number;
}

/** Kept count of the notifications per recipient set (recipient-sets.ts), maintained in each write's transaction. */
export interface NotificationRecipientSetsTable {
  tenant_id: string;
  /** recipientSetKey: a hash of the kind and the sorted names. */
  set_key: string;
  /** How many notifications name exactly this set now; a set at 0 stays (a concurrent add may be reviving it). */
  notifications: number;
}

/** The names of each recipient set: which sets name a caller. */
export interface NotificationSetMembersTable {
  tenant_id: string;
  kind: string;
  name: string;
  set_key: string;
}

/** Per-tenant maintenance switch set at run time; no row means the config's `maintenance`. */
export interface NotificationSettingsTable {
  tenant_id: string;
  maintenance: number | boolean;
}

export interface NotificationsTables extends EventsTables {
  notifications: NotificationsTable;
  notification_recipients: NotificationRecipientsTable;
  notification_settings: NotificationSettingsTable;
  notification_recipient_sets: NotificationRecipientSetsTable;
  notification_set_members: NotificationSetMembersTable;
}
