// The caller's live notifications (GET /cxf/svc-core/notification/stream): `notification` events (add, update,
// delete) and `reset` when the service could not resume from the given id.
import type { ClientCore } from './client.js';
import { resetOf, subscribeStream, type ResetEvent, type StreamOptions, type Unsubscribe } from './live.js';
import type { paths } from './schema.js';

/** A notification as the service answers it. */
export type Notification =
  paths['/cxf/svc-core/notification/{notificationId}']['get']['responses'][200]['content']['application/json'];

export interface NotificationEvent {
  type: 'notification';
  action: 'add' | 'update' | 'delete';
  notification: Notification;
  /** The event's id: keep it to resume from here later (`lastEventId`). */
  eventId?: string;
}

export type NotificationStreamEvent = NotificationEvent | ResetEvent;

export interface NotificationHelpers {
  /**
   * Calls `onEvent` with every notification event the caller may see, from `options.lastEventId` on (replayed by the
   * service) or from now; reconnects and resumes by itself. Answers the function that ends the subscription.
   */
  subscribe(onEvent: (event: NotificationStreamEvent) => void, options?: StreamOptions): Unsubscribe;
}

export const NOTIFICATION_STREAM_PATH = '/cxf/svc-core/notification/stream';

export function createNotifications(core: ClientCore): NotificationHelpers {
  return {
    subscribe(onEvent, options) {
      return subscribeStream(
        core,
        NOTIFICATION_STREAM_PATH,
        (message) => {
          if (message.event === 'reset') return onEvent(resetOf(message));
          if (message.event !== 'notification') return;
          const data = JSON.parse(message.data) as Omit<NotificationEvent, 'type' | 'eventId'>;
          onEvent({ type: 'notification', action: data.action, notification: data.notification, eventId: message.id });
        },
        options,
      );
    },
  };
}
