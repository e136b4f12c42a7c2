// A user's live sessions (newest first) with "End" per session and "End all". A session's id is the hash the
// service stores, never the cookie: its first characters name the session on the page.
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { formatInstant, identityApi } from '../../identity-api';
import { ErrorMessage } from '../error-message';

export const sessionsKey = (loginName: string) => ['admin-user-sessions', loginName] as const;
export const shortId = (id: string) => id.slice(0, 8);

export function UserSessions({ loginName }: { loginName: string }) {
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: sessionsKey(loginName), queryFn: () => identityApi.sessions(loginName) });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState('');

  const end = async (id?: string) => {
    setBusy(true);
    setError(undefined);
    try {
      const { sessionsEnded } = id
        ? await identityApi.endSession(loginName, id)
        : await identityApi.endAllSessions(loginName);
      setNotice(id ? `Ended session ${shortId(id)}.` : `Ended ${sessionsEnded} session(s).`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      await queryClient.invalidateQueries({ queryKey: sessionsKey(loginName) });
    }
  };

  const items = sessions.data?.items ?? [];
  return (
    <section class="panel-form" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <ErrorMessage error={sessions.error ?? error} />
      {sessions.data && items.length === 0 && <p>No live session.</p>}
      {items.length > 0 && (
        <table class="grid" aria-label="Sessions">
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Started</th>
              <th scope="col">Expires</th>
              <th scope="col">Address</th>
              <th scope="col">Browser</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((s) => (
              <tr key={s.id}>
                <td class="mono" title={s.id}>
                  {shortId(s.id)}
                </td>
                <td>{formatInstant(s.createdOn)}</td>
                <td>{formatInstant(s.expiresOn)}</td>
                <td>{s.remoteAddress}</td>
                <td class="user-agent">{s.userAgent}</td>
                <td class="row-actions">
                  <button
                    type="button"
                    disabled={busy}
                    aria-label={`End session ${shortId(s.id)}`}
                    onClick={() => end(s.id)}
                  >
                    End
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="actions">
        <button type="button" class="danger" disabled={busy || items.length === 0} onClick={() => end()}>
          End all sessions
        </button>
      </div>
      <p class="notice" role="status">
        {notice}
      </p>
    </section>
  );
}
