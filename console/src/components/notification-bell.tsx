// The bell in the header: the number of notifications in the caller's inbox, kept current by the notification stream
// (every add, update and delete the caller may see refetches the inbox queries), and the maintenance banner: while
// the tenant's notifications are in maintenance, every notification call answers 503 with the service's message,
// which the banner shows to everyone until the service is back.
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useEffect, useState } from 'preact/hooks';
import { adminApi, isMaintenance, subscribeNotifications } from '../admin-api';
import { href } from '../router';
import './notification-bell.css';

/** The query keys of the inbox: the bell's count and the inbox pages share the prefix. */
export const NOTIFICATIONS_KEY = ['notifications'] as const;
const COUNT_KEY = [...NOTIFICATIONS_KEY, 'count'] as const;
/** How often a page in maintenance asks whether the service is back. */
const MAINTENANCE_POLL_MS = 3000;

export function NotificationBell() {
  const queryClient = useQueryClient();
  const count = useQuery({
    queryKey: COUNT_KEY,
    queryFn: () => adminApi.notifications(0, 1),
    refetchInterval: (q) => (isMaintenance(q.state.error) ? MAINTENANCE_POLL_MS : false),
  });
  const maintenance = isMaintenance(count.error) ? count.error.message : undefined;
  const [announce, setAnnounce] = useState('');
  const [stream, setStream] = useState<'live' | 'connecting' | 'closed'>('connecting');

  // One subscription while the header is shown: the SDK reconnects with back-off, resumes from the last event id
  // and keeps asking through a maintenance (503), so the stream comes back by itself when the service does.
  useEffect(() => {
    const refresh = () => queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_KEY });
    const stop = subscribeNotifications(
      (event) => {
        if (event.action === 'add') setAnnounce(`New notification: ${event.notification.subject}`);
        void refresh();
      },
      (state) => {
        setStream(state === 'open' ? 'live' : state);
        // Opened again (after a drop or a maintenance) or dropped (maintenance ends open streams): ask at once.
        void refresh();
      },
      (error) => {
        if (isMaintenance(error)) void refresh();
      },
    );
    return () => {
      stop();
    };
  }, [queryClient]);

  const total = count.data?.total;
  const label = total === undefined ? 'Notifications' : `Notifications, ${total}`;
  return (
    <>
      <a class="bell" href={href('/notifications')} aria-label={label} title={label} data-stream={stream}>
        <svg aria-hidden="true" viewBox="0 0 24 24" width="18" height="18">
          <path
            fill="currentColor"
            d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1Z"
          />
        </svg>
        {total !== undefined && (
          <span class="bell-count" data-testid="bell-count">
            {total}
          </span>
        )}
      </a>
      <span class="visually-hidden" aria-live="polite">
        {announce}
      </span>
      {maintenance && (
        <div class="maintenance-banner" role="status">
          <strong>Maintenance:</strong> {maintenance}
        </div>
      )}
    </>
  );
}
