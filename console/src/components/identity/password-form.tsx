// Sets a user's password. The API ends every session of the user with it, which the form says before and after.
import { useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { identityApi } from '../../identity-api';
import { ErrorMessage } from '../error-message';
import { sessionsKey } from './user-sessions';

/** The API's shortest password. */
const MIN_LENGTH = 8;

export function PasswordForm({ loginName }: { loginName: string }) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState('');

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const password = String(new FormData(form).get('password') ?? '');
    setBusy(true);
    setError(undefined);
    setNotice('');
    try {
      const { sessionsEnded } = await identityApi.setPassword(loginName, password);
      form.reset();
      setNotice(`Password set; ${sessionsEnded} session(s) ended.`);
      await queryClient.invalidateQueries({ queryKey: sessionsKey(loginName) });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="panel-form" aria-labelledby="password-heading" onSubmit={submit}>
      <h2 id="password-heading">Set password</h2>
      <label>
        New password
        <input
          name="password"
          type="password"
          required
          minLength={MIN_LENGTH}
          maxLength={1024}
          autoComplete="new-password"
          aria-describedby="password-hint"
        />
      </label>
      <p id="password-hint" class="hint">
        At least {MIN_LENGTH} characters. Setting a password ends all of the user's sessions.
      </p>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Set password
        </button>
      </div>
      <p class="notice" role="status">
        {notice}
      </p>
    </form>
  );
}
