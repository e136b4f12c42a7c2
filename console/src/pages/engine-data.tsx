// The process engine's data management, read-only: templates (with their images) and their assets. The engine's API
// takes an engine user of group DataManagement, not the console session: the page asks for that user and keeps the
// credentials in its own memory only (leaving the page, a reload or logging out forgets them).
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { ErrorMessage } from '../components/error-message';
import { TemplateAssets } from '../components/engine-assets';
import { type EngineData, engineData } from '../engine-api';
import type { PageProps } from '../routes';
import './admin-pages.css';
import './engine-pages.css';

function TemplateImage({ dm, user, customId }: { dm: EngineData; user: string; customId: string }) {
  const image = useQuery({ queryKey: ['dm', user, 'image', customId], queryFn: () => dm.image(customId) });
  if (!image.data) return <span>{image.isPending ? '…' : 'none'}</span>;
  return <img src={image.data} alt={`Template ${customId}`} width={32} height={32} />;
}

function Templates({ dm, user }: { dm: EngineData; user: string }) {
  const templates = useQuery({ queryKey: ['dm', user, 'templates'], queryFn: () => dm.templates() });
  const [open, setOpen] = useState<string | undefined>(undefined);
  return (
    <>
      <h2>Templates</h2>
      <ErrorMessage error={templates.error} />
      {templates.isPending && <p aria-busy="true">Loading…</p>}
      {templates.data?.total === 0 && <p>There are no templates.</p>}
      {templates.data && templates.data.total > 0 && (
        <table class="grid">
          <caption class="visually-hidden">Templates</caption>
          <thead>
            <tr>
              <th scope="col">Image</th>
              <th scope="col">Custom id</th>
              <th scope="col">Name</th>
              <th scope="col">Attributes</th>
              <th scope="col">Assets</th>
            </tr>
          </thead>
          <tbody>
            {templates.data.templates.map((t) => (
              <tr key={t.id}>
                <td>
                  <TemplateImage dm={dm} user={user} customId={t.customId} />
                </td>
                <td>{t.customId}</td>
                <td>{t.name}</td>
                <td>{t.attributes.map((a) => a.key).join(', ')}</td>
                <td>
                  <button type="button" aria-pressed={open === t.customId} onClick={() => setOpen(t.customId)}>
                    Assets of {t.customId}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open && <TemplateAssets dm={dm} user={user} templateCustomId={open} />}
    </>
  );
}

export function EngineDataPage(_: PageProps) {
  const queryClient = useQueryClient();
  const [connected, setConnected] = useState<{ dm: EngineData; user: string } | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  const connect = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const username = String(form.get('username') ?? '');
    const dm = engineData({ username, password: String(form.get('password') ?? '') });
    setBusy(true);
    setError(undefined);
    try {
      await dm.check();
      setConnected({ dm, user: username });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const disconnect = () => {
    queryClient.removeQueries({ queryKey: ['dm'] });
    setConnected(undefined);
  };

  return (
    <>
      <h1>Engine data</h1>
      {!connected && (
        <form class="engine-login" onSubmit={connect}>
          <p>
            Data management is the process engine's: sign in as an engine user of the group DataManagement. The password
            stays in this page's memory only.
          </p>
          <label>
            Engine user <input name="username" autoComplete="off" required />
          </label>
          <label>
            Engine password <input name="password" type="password" autoComplete="off" required />
          </label>
          <button type="submit" disabled={busy}>
            Connect
          </button>
          <ErrorMessage error={error} />
        </form>
      )}
      {connected && (
        <div class="engine-data">
          <p>
            Reading as engine user <strong>{connected.user}</strong>.{' '}
            <button type="button" onClick={disconnect}>
              Disconnect
            </button>
          </p>
          <Templates dm={connected.dm} user={connected.user} />
        </div>
      )}
    </>
  );
}
