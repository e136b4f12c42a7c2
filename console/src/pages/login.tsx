import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type SessionRecord } from '../api';
import { ErrorMessage } from '../components/error-message';

const LAST_TENANT = 'console.tenant';

/** The login form: tenant, user name and password, as the API's login takes them; its error shown as it answers. */
export function LoginPage({ onLogin }: { onLogin: (session: SessionRecord) => void }) {
  const [tenant, setTenant] = useState(() => localStorage.getItem(LAST_TENANT) ?? 'default');
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const userField = useRef<HTMLInputElement>(null);

  useEffect(() => {
    document.title = 'Log in · Console';
    userField.current?.focus();
    // The moment the form is usable (bench/console-load.mjs reads it: time-to-interactive of the first load).
    if (!performance.getEntriesByName('console:login-ready').length) performance.mark('console:login-ready');
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const session = await api.login(tenant.trim(), user.trim(), password);
      localStorage.setItem(LAST_TENANT, tenant.trim());
      onLogin(session);
    } catch (err) {
      setError(err);
      setPassword('');
      setBusy(false);
    }
  };

  return (
    <main id="main" class="login" tabIndex={-1}>
      <form class="card" onSubmit={submit}>
        <h1>Log in</h1>
        <label>
          Tenant
          <input
            name="tenant"
            autoComplete="organization"
            required
            value={tenant}
            onInput={(e) => setTenant(e.currentTarget.value)}
          />
        </label>
        <label>
          User name
          <input
            ref={userField}
            name="username"
            autoComplete="username"
            required
            value={user}
            onInput={(e) => setUser(e.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <ErrorMessage error={error} />
        <button type="submit" class="primary" disabled={busy}>
          Log in
        </button>
      </form>
    </main>
  );
}
