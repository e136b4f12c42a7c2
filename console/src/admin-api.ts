// The calls of the notifications, forms, audit and maintenance pages, through api.ts's `call` (session cookie and
// CSRF header). Interim like api.ts: once the SDK (@svc-platform/client) is merged, these delegate to it
// (`client.notifications.subscribe` for the stream, which `subscribeNotifications` mirrors).
import { ApiError, call, type SessionRecord } from './api';

export type RecipientsType = 'user' | 'role' | 'organisation';
export type Priority = 0 | 5 | 10;

export interface Notification {
  id: string;
  priority: Priority;
  subject: string;
  message: string;
  recipients: string[];
  recipientsType: RecipientsType;
  originator?: string;
  icon?: string;
  type?: string;
  typeSpecificData?: Record<string, unknown>;
  date: string;
  version: number;
}

export interface NotificationWrite {
  id?: string;
  priority: Priority;
  subject: string;
  message: string;
  recipients: string[];
  recipientsType: RecipientsType;
}

export interface NotificationPage {
  total: number;
  items: Notification[];
}

export interface NotificationEvent {
  action: 'add' | 'update' | 'delete';
  notification: Notification;
  eventId: string;
}

export interface FormVersion {
  id: string;
  version: number;
  name: string;
  config: Record<string, unknown>;
  createdOn: string;
  createdBy: string;
}

export interface AuditRecord {
  id: string;
  at: string;
  actor: string;
  action: string;
  outcome: string;
  remoteAddress: string;
  userAgent: string;
  detail: Record<string, unknown>;
}

export interface AuditQuery {
  from?: string;
  to?: string;
  actor?: string;
  action?: string;
  outcome?: '' | 'success' | 'failure';
}

const NOTIFICATION = '/cxf/svc-core/notification';
const MAINTENANCE = '/cxf/svc-core/notification-maintenance';
const FORMS = '/cxf/svc-forms';
const AUDIT = '/cxf/svc-core/audit';
const enc = encodeURIComponent;
const JSON_TYPE = 'application/json';

/** The answer of every notification endpoint while the tenant is in maintenance. */
export const MAINTENANCE_KEY = 'NOTIFICATION_ERROR_MAINTENANCE';
export const isMaintenance = (err: unknown): err is ApiError =>
  err instanceof ApiError && err.status === 503 && err.body.messageKey === MAINTENANCE_KEY;

function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const adminApi = {
  notifications: (start: number, limit: number) =>
    call<NotificationPage>('GET', `${NOTIFICATION}${query({ start, limit })}`),
  addNotification: (n: NotificationWrite) => call<Notification>('POST', NOTIFICATION, JSON.stringify(n), JSON_TYPE),
  updateNotification: (id: string, n: NotificationWrite) =>
    call<Notification>('PUT', `${NOTIFICATION}/${enc(id)}`, JSON.stringify(n), JSON_TYPE),
  deleteNotification: (id: string) => call<Notification>('DELETE', `${NOTIFICATION}/${enc(id)}`),
  maintenance: () => call<{ active: boolean }>('GET', MAINTENANCE),
  setMaintenance: (active: boolean) =>
    call<{ active: boolean }>('PUT', MAINTENANCE, JSON.stringify({ active }), JSON_TYPE),
  forms: () => call<FormVersion[]>('GET', `${FORMS}/forms`),
  formHistory: (formId: string) => call<FormVersion[]>('GET', `${FORMS}/history/${enc(formId)}`),
  audit: (q: AuditQuery, start: number, limit: number) =>
    call<{ total: number; items: AuditRecord[] }>('GET', `${AUDIT}${query({ ...q, start, limit })}`),
};

/**
 * The caller's live notifications: calls `onEvent` for every add, update and delete it may see, `onState` when the
 * stream opens or drops. EventSource reconnects by itself with Last-Event-ID; an answer that is not a stream (503 in
 * maintenance) closes it for good, and the caller opens a new subscription when the service is back.
 */
export function subscribeNotifications(
  onEvent: (event: NotificationEvent) => void,
  onState: (state: 'live' | 'connecting' | 'closed') => void,
): () => void {
  const source = new EventSource(`${NOTIFICATION}/stream`);
  source.onopen = () => onState('live');
  source.onerror = () => onState(source.readyState === EventSource.CLOSED ? 'closed' : 'connecting');
  source.addEventListener('notification', (e: MessageEvent<string>) => {
    const data = JSON.parse(e.data) as Omit<NotificationEvent, 'eventId'>;
    onEvent({ ...data, eventId: e.lastEventId });
  });
  return () => source.close();
}

/** Who may do what: the console hides what the API would refuse (the API stays the authority). */
const role = (s: SessionRecord, r: string) => s.roles.includes(r);
const right = (s: SessionRecord, r: string) => s.rights.includes(r);
export const can = {
  addNotification: (s: SessionRecord) => role(s, 'NOTIFICATION_ADMIN') || right(s, 'NOTIFICATION_ADD'),
  updateNotification: (s: SessionRecord) => role(s, 'NOTIFICATION_ADMIN') || right(s, 'NOTIFICATION_UPDATE'),
  deleteNotification: (s: SessionRecord) => role(s, 'NOTIFICATION_ADMIN') || right(s, 'NOTIFICATION_DELETE'),
  listForms: (s: SessionRecord) => role(s, 'FORMS_ADMIN') || right(s, 'FORMS_READ_ALL'),
  formHistory: (s: SessionRecord) => role(s, 'FORMS_ADMIN') || right(s, 'FORMS_READ_HISTORY'),
  audit: (s: SessionRecord) => role(s, 'ADMIN'),
  maintenance: (s: SessionRecord) => role(s, 'ADMIN'),
};
