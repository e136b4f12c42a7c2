// The maintenance switch of the tenant's notifications (role ADMIN). While it is on, every notification call of the
// tenant answers 503 with the service's message, which every user's console shows as a banner (the bell's).
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { adminApi } from '../admin-api';
import { ErrorMessage } from '../components/error-message';
import { NOTIFICATIONS_KEY } from '../components/notification-bell';
import type { PageProps } from '../routes';
import './admin-pages.css';

const KEY = ['maintenance'] as const;

export function MaintenancePage(_: PageProps) {
  const queryClient = useQueryClient();
  const state = useQuery({ queryKey: KEY, queryFn: () => adminApi.maintenance() });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState('');
  const active = state.data?.active;

  const toggle = async () => {
    if (active === undefined) return;
    setBusy(true);
    setError(undefined);
    try {
      const next = await adminApi.setMaintenance(!active);
      queryClient.setQueryData(KEY, next);
      setNotice(next.active ? 'Maintenance mode is on.' : 'Maintenance mode is off.');
      await queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_KEY });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>Maintenance</h1>
      <p>
        Maintenance mode closes every notification endpoint of this tenant, the live stream included, on every instance,
        until it is switched off. Every other user sees a banner with the service's message meanwhile.
      </p>
      <ErrorMessage error={state.error ?? error} />
      {active !== undefined && (
        <div class="switch-row">
          <button
            type="button"
            role="switch"
            aria-checked={active}
            aria-describedby="maintenance-state"
            disabled={busy}
            onClick={toggle}
          >
            Maintenance mode
          </button>
          <span id="maintenance-state" class={active ? 'state-on' : 'state-off'}>
            {active ? 'On' : 'Off'}
          </span>
        </div>
      )}
      <p class="notice" role="status">
        {notice}
      </p>
    </>
  );
}
