// One API key of the list: its grants and expiry, a form to set the expiry, and revoke (the page confirms first).
import { useState } from 'preact/hooks';
import { type AdminApiKey, formatInstant, identityApi, toInstant, toLocalInput } from '../../identity-api';

interface Props {
  apiKey: AdminApiKey;
  onChanged: (notice: string) => void;
  onError: (error: unknown) => void;
  onRevoke: (name: string) => void;
}

export function ApiKeyRow({ apiKey, onChanged, onError, onRevoke }: Props) {
  const [busy, setBusy] = useState(false);
  const name = apiKey.name;

  const setExpiry = async (event: Event) => {
    event.preventDefault();
    const local = String(new FormData(event.currentTarget as HTMLFormElement).get('expiresOn') ?? '');
    setBusy(true);
    try {
      const saved = await identityApi.setApiKeyExpiry(name, toInstant(local));
      onChanged(`${name} expires: ${formatInstant(saved.expiresOn)}.`);
    } catch (err) {
      onError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <tr>
      <td>{name}</td>
      <td>{apiKey.roles.join(', ')}</td>
      <td>{apiKey.organisations.join(', ')}</td>
      <td>{apiKey.rights.join(', ')}</td>
      <td>{formatInstant(apiKey.createdOn)}</td>
      <td>
        <form key={apiKey.expiresOn ?? 'never'} class="expiry" onSubmit={setExpiry}>
          <input
            name="expiresOn"
            type="datetime-local"
            defaultValue={toLocalInput(apiKey.expiresOn)}
            aria-label={`Expiry of ${name}`}
            title="Empty: never"
          />
          <button type="submit" disabled={busy} aria-label={`Set expiry of ${name}`}>
            Set
          </button>
        </form>
        <span class="hint">{formatInstant(apiKey.expiresOn)}</span>
      </td>
      <td class="row-actions">
        <button type="button" class="danger" disabled={busy} onClick={() => onRevoke(name)}>
          Revoke<span class="visually-hidden"> {name}</span>
        </button>
      </td>
    </tr>
  );
}
