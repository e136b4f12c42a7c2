import type { Kysely } from 'kysely';
import { forTenant } from '../../platform/db/tenant-scope.js';
import type { NotificationsTables } from './notifications.tables.js';
import type { Visibility } from './notification.js';

// A notification row as the repositories answer it, and the caller's recipient names both the list and the
// visibility rule start from.

export type Caller = Extract<Visibility, { all: false }>;

export interface NotificationRow {
  seq: number;
  doc: string;
  date: number;
  version: number;
}

export function toRow(row: { seq: unknown; doc: string; date: unknown; version: unknown }): NotificationRow {
  return { seq: Number(row.seq), doc: row.doc, date: Number(row.date), version: Number(row.version) };
}

/** The caller's recipient names, each once: its login name, its roles, its active organisations. */
export function callerNames(v: Caller): { kind: string; name: string }[] {
  return [
    { kind: 'user', name: v.user },
    ...[...new Set(v.roles)].map((name) => ({ kind: 'role', name })),
    ...[...new Set(v.organisations)].map((name) => ({ kind: 'organisation', name })),
  ];
}

/** The recipient rows naming the caller: its login name, one of its roles, one of its active organisations. */
export function callerRecipientRows(db: Kysely<NotificationsTables>, tenantId: string, v: Caller) {
  return forTenant(db, tenantId)
    .selectFrom('notification_recipients as r')
    .where((w) => {
      const any = [w.and([w('r.kind', '=', 'user'), w('r.name', '=', v.user)])];
      if (v.roles.length) any.push(w.and([w('r.kind', '=', 'role'), w('r.name', 'in', v.roles)]));
      if (v.organisations.length)
        any.push(w.and([w('r.kind', '=', 'organisation'), w('r.name', 'in', v.organisations)]));
      return w.or(any);
    });
}
