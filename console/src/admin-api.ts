// The calls of the notifications, forms, audit and maintenance pages, through the SDK's client of api.ts (session
// cookie and CSRF header), typed by the SDK's generated paths.
import { type ApiError, isApiError, type StreamState, unwrap } from '@svc-platform/client';
import { client, type SessionRecord } from './api';

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
  [member: string]: unknown;
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

/** The answer of every notification endpoint while the tenant is in maintenance. */
export const MAINTENANCE_KEY = 'NOTIFICATION_ERROR_MAINTENANCE';
export const isMaintenance = (err: unknown): err is ApiError => isApiError(err, MAINTENANCE_KEY) && err.status === 503;

/** The filter's members that are set (the API takes no empty values). */
function given<T extends object>(q: T): Partial<T> {
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>;
}

const as = <T>(call: Promise<unknown>) => call as Promise<T>;
const notificationPath = (notificationId: string) => ({ params: { path: { notificationId } } });

export const adminApi = {
  notifications: (start: number, limit: number) =>
    as<NotificationPage>(unwrap(client.GET('/cxf/svc-core/notification', { params: { query: { start, limit } } }))),
  addNotification: (n: NotificationWrite) =>
    as<Notification>(unwrap(client.POST('/cxf/svc-core/notification', { body: n }))),
  updateNotification: (id: string, n: NotificationWrite) =>
    as<Notification>(
      unwrap(client.PUT('/cxf/svc-core/notification/{notificationId}', { ...notificationPath(id), body: n })),
    ),
  deleteNotification: (id: string) =>
    as<Notification>(unwrap(client.DELETE('/cxf/svc-core/notification/{notificationId}', notificationPath(id)))),
  maintenance: () => unwrap(client.GET('/cxf/svc-core/notification-maintenance')),
  setMaintenance: (active: boolean) =>
    unwrap(client.PUT('/cxf/svc-core/notification-maintenance', { body: { active } })),
  forms: () => as<FormVersion[]>(unwrap(client.GET('/cxf/svc-forms/forms'))),
  formHistory: (formId: string) =>
    as<FormVersion[]>(unwrap(client.GET('/cxf/svc-forms/history/{formId}', { params: { path: { formId } } }))),
  audit: (q: AuditQuery, start: number, limit: number) =>
    as<{ total: number; items: AuditRecord[] }>(
      unwrap(
        client.GET('/cxf/svc-core/audit', {
          params: { query: { ...given({ ...q, outcome: q.outcome || undefined }), start, limit } },
        }),
      ),
    ),
};

/**
 * The caller's live notifications through the SDK's `client.notifications.subscribe` (it reconnects with back-off
 * and resumes from the last event id; a 503 in maintenance is retried until the service is back). `onEvent` gets
 * every add, update and delete the caller may see; `onProblem` every refusal or lost connection.
 */
export function subscribeNotifications(
  onEvent: (event: NotificationEvent) => void,
  onState: (state: StreamState) => void,
  onProblem: (error: unknown) => void,
): () => void {
  return client.notifications.subscribe(
    (event) => {
      if (event.type !== 'notification') return;
      onEvent({
        action: event.action,
        notification: event.notification as Notification,
        eventId: event.eventId ?? '',
      });
    },
    { onStateChange: onState, onError: onProblem },
  );
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
