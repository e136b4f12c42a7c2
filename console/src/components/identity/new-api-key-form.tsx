// Creates an API key (name, organisations, roles, rights, expiry). The key is in the creating answer only: it is
// shown here once, with a Copy button, until the form is used again or the page is left.
import { useState } from 'preact/hooks';
import { identityApi, parseList, toInstant } from '../../identity-api';
import { ErrorMessage } from '../error-message';

export function NewApiKeyForm({ onCreated }: { onCreated: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [created, setCreated] = useState<{ name: string; key: string } | undefined>(undefined);
  const [copyState, setCopyState] = useState('');

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    setBusy(true);
    setError(undefined);
    setCreated(undefined);
    setCopyState('');
    try {
      const answer = await identityApi.createApiKey({
        name: text('name'),
        roles: parseList(text('roles')),
        organisations: parseList(text('organisations')),
        rights: parseList(text('rights')),
        expiresOn: toInstant(text('expiresOn')),
      });
      form.reset();
      setCreated({ name: answer.apiKey.name, key: answer.key });
      onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const copy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.key);
      setCopyState('Copied to the clipboard.');
    } catch {
      setCopyState('The browser refused the clipboard: select the key and copy it.');
    }
  };

  return (
    <form class="panel-form" aria-labelledby="new-key-heading" onSubmit={submit}>
      <h2 id="new-key-heading">New API key</h2>
      <div class="form-row">
        <label>
          Name
          <input name="name" required maxLength={256} autoComplete="off" />
        </label>
        <label>
          Expires on
          <input name="expiresOn" type="datetime-local" aria-describedby="new-key-expiry-hint" />
        </label>
      </div>
      <p id="new-key-expiry-hint" class="hint">
        Your browser's time zone; empty: the key never expires.
      </p>
      <div class="form-row">
        <label>
          Roles
          <input name="roles" autoComplete="off" aria-describedby="new-key-lists-hint" />
        </label>
        <label>
          Organisations
          <input name="organisations" autoComplete="off" aria-describedby="new-key-lists-hint" />
        </label>
        <label>
          Rights
          <input name="rights" autoComplete="off" aria-describedby="new-key-lists-hint" />
        </label>
      </div>
      <p id="new-key-lists-hint" class="hint">
        Comma-separated.
      </p>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Create API key
        </button>
      </div>
      {created && (
        <section class="new-key" aria-labelledby="new-key-shown">
          <h3 id="new-key-shown">The key of {created.name}</h3>
          <p>Copy it now: it is shown this once, and the service keeps only its hash.</p>
          <div class="actions">
            <code class="mono" data-testid="new-api-key">
              {created.key}
            </code>
            <button type="button" aria-label={`Copy the key of ${created.name}`} onClick={copy}>
              Copy
            </button>
          </div>
        </section>
      )}
      <p class="notice" role="status">
        {copyState}
      </p>
    </form>
  );
}
