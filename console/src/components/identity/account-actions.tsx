// What an administrator does to a whole account: deactivate or activate it (deactivating ends its sessions), lift
// the login throttle's hold on it, and delete it (after a confirmation).
import { useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { type AdminUser, identityApi } from '../../identity-api';
import { navigate } from '../../router';
import { ConfirmDialog } from '../confirm-dialog';
import { ErrorMessage } from '../error-message';
import { sessionsKey } from './user-sessions';

interface Props {
  user: AdminUser;
  onChanged: (user: AdminUser) => void;
}

export function AccountActions({ user, onChanged }: Props) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState('');
  const [confirming, setConfirming] = useState(false);
  const name = user.loginName;

  const run = async (action: () => Promise<string>) => {
    setBusy(true);
    setError(undefined);
    setNotice('');
    try {
      setNotice(await action());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const toggleActive = () =>
    run(async () => {
      const changed = await identityApi.updateUser(name, { active: !user.active });
      onChanged(changed);
      await queryClient.invalidateQueries({ queryKey: sessionsKey(name) });
      return changed.active ? `${name} is active.` : `${name} is deactivated; their sessions ended.`;
    });
  const unlock = () =>
    run(async () => {
      const { wasHeld } = await identityApi.unlock(name);
      return wasHeld
        ? `The login throttle's hold on ${name} is lifted.`
        : `The login throttle held nothing for ${name}.`;
    });
  const remove = () => {
    setConfirming(false);
    return run(async () => {
      await identityApi.deleteUser(name);
      await queryClient.invalidateQueries({ queryKey: ['admin-users'] });
      navigate('/users');
      return `Deleted ${name}.`;
    });
  };

  return (
    <section class="panel-form" aria-labelledby="account-heading">
      <h2 id="account-heading">Account</h2>
      <p>
        Status: <strong>{user.active ? 'Active' : 'Inactive'}</strong>
        {user.hasPassword ? '' : ' (no password set)'}
      </p>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="button" disabled={busy} onClick={toggleActive} aria-describedby="active-hint">
          {user.active ? 'Deactivate' : 'Activate'}
        </button>
        <button type="button" disabled={busy} onClick={unlock} aria-describedby="unlock-hint">
          Unlock
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => setConfirming(true)}>
          Delete user
        </button>
      </div>
      <p id="active-hint" class="hint">
        An inactive user cannot log in; deactivating ends their sessions.
      </p>
      <p id="unlock-hint" class="hint">
        Unlock forgets the account's failed logins, so the login throttle lets its next login through at once.
      </p>
      <p class="notice" role="status">
        {notice}
      </p>
      <ConfirmDialog
        question={confirming ? `Delete the user ${name}? Their sessions end; this cannot be undone.` : undefined}
        confirmLabel="Delete"
        onConfirm={remove}
        onCancel={() => setConfirming(false)}
      />
    </section>
  );
}
