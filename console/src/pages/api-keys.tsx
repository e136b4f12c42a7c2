// The tenant's API keys (TENANT_ADMIN): the list without secrets, a new key (shown once, with Copy), the expiry of
// each, and revoke after a confirmation.
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorMessage } from '../components/error-message';
import { ApiKeyRow } from '../components/identity/api-key-row';
import { NewApiKeyForm } from '../components/identity/new-api-key-form';
import { Pager } from '../components/pager';
import { identityApi } from '../identity-api';
import type { PageProps } from '../routes';
import './admin-pages.css';
import './identity-pages.css';

const KEYS = ['admin-api-keys'] as const;

export function ApiKeysPage(_: PageProps) {
  const queryClient = useQueryClient();
  const [start, setStart] = useState(0);
  const [limit, setLimit] = useState(20);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState('');
  const [revoking, setRevoking] = useState<string | undefined>(undefined);
  const keys = useQuery({
    queryKey: [...KEYS, start, limit],
    // The answer keeps its start: the pager describes the page shown while the next one loads (components/pager.tsx).
    queryFn: async () => ({ ...(await identityApi.apiKeys(start, limit)), shownStart: start }),
    placeholderData: keepPreviousData,
  });
  const reload = () => queryClient.invalidateQueries({ queryKey: KEYS });
  const changed = (text: string) => {
    setError(undefined);
    setNotice(text);
    void reload();
  };

  const revoke = async () => {
    const name = revoking;
    setRevoking(undefined);
    if (!name) return;
    try {
      await identityApi.revokeApiKey(name);
      changed(`Revoked ${name}.`);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <h1>API keys</h1>
      <NewApiKeyForm onCreated={reload} />
      <h2>Keys of this tenant</h2>
      <ErrorMessage error={keys.error ?? error} />
      <p class="notice" role="status">
        {notice}
      </p>
      {keys.data && keys.data.total === 0 && <p>This tenant has no API keys.</p>}
      {keys.data && keys.data.items.length > 0 && (
        <table class="grid" aria-label="API keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Roles</th>
              <th scope="col">Organisations</th>
              <th scope="col">Rights</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data.items.map((k) => (
              <ApiKeyRow key={k.name} apiKey={k} onChanged={changed} onError={setError} onRevoke={setRevoking} />
            ))}
          </tbody>
        </table>
      )}
      {keys.data && (
        <Pager
          start={start}
          limit={limit}
          total={keys.data.total}
          shown={{ start: keys.data.shownStart, count: keys.data.items.length }}
          onStart={setStart}
          onLimit={(l) => {
            setLimit(l);
            setStart(0);
          }}
        />
      )}
      <ConfirmDialog
        question={revoking ? `Revoke the API key ${revoking}? It stops working at once.` : undefined}
        confirmLabel="Revoke"
        onConfirm={revoke}
        onCancel={() => setRevoking(undefined)}
      />
    </>
  );
}
