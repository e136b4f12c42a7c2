// A user's details, roles, organisations and rights, edited and saved with one PATCH (lists are replaced whole).
import { useState } from 'preact/hooks';
import { type AdminUser, identityApi, parseList } from '../../identity-api';
import { ErrorMessage } from '../error-message';

interface Props {
  user: AdminUser;
  onSaved: (user: AdminUser) => void;
}

const FIELDS = [
  { name: 'firstName', label: 'First name', type: 'text', max: 256 },
  { name: 'lastName', label: 'Last name', type: 'text', max: 256 },
  { name: 'email', label: 'E-mail', type: 'email', max: 320 },
] as const;
const LISTS = [
  { name: 'roles', label: 'Roles' },
  { name: 'organisations', label: 'Organisations' },
  { name: 'rights', label: 'Rights' },
] as const;

export function UserDetailsForm({ user, onSaved }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState('');

  const save = async (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    setBusy(true);
    setError(undefined);
    setNotice('');
    try {
      const saved = await identityApi.updateUser(user.loginName, {
        firstName: text('firstName'),
        lastName: text('lastName'),
        email: text('email'),
        roles: parseList(text('roles')),
        organisations: parseList(text('organisations')),
        rights: parseList(text('rights')),
      });
      onSaved(saved);
      setNotice(`Saved ${saved.loginName}.`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  // Keyed by updatedOn: the inputs are uncontrolled and start again from what the API answered last.
  return (
    <form key={user.updatedOn} class="panel-form" aria-labelledby="details-heading" onSubmit={save}>
      <h2 id="details-heading">Details</h2>
      <p>
        Login name: <strong>{user.loginName}</strong>
      </p>
      <div class="form-row">
        {FIELDS.map((f) => (
          <label key={f.name}>
            {f.label}
            <input name={f.name} type={f.type} maxLength={f.max} defaultValue={user[f.name]} autoComplete="off" />
          </label>
        ))}
      </div>
      {LISTS.map((l) => (
        <label key={l.name}>
          {l.label}
          <input
            name={l.name}
            defaultValue={user[l.name].join(', ')}
            aria-describedby="lists-hint"
            autoComplete="off"
          />
        </label>
      ))}
      <p id="lists-hint" class="hint">
        Comma-separated; each list replaces the user's whole list.
      </p>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Save details
        </button>
      </div>
      <p class="notice" role="status">
        {notice}
      </p>
    </form>
  );
}
