// The users of the tenant (TENANT_ADMIN): the API's search (login name, e-mail, names, ignoring case), paging with
// the total, and a link to each user's page.
import { keepPreviousData, useQuery } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { ErrorMessage } from '../components/error-message';
import { Pager } from '../components/pager';
import { identityApi } from '../identity-api';
import { href } from '../router';
import type { PageProps } from '../routes';
import './admin-pages.css';
import './identity-pages.css';

export const USERS_KEY = ['admin-users'] as const;

export function UsersPage(_: PageProps) {
  const [search, setSearch] = useState('');
  const [start, setStart] = useState(0);
  const [limit, setLimit] = useState(20);
  const users = useQuery({
    queryKey: [...USERS_KEY, search, start, limit],
    // The answer keeps its start: the pager describes the page shown while the next one loads (components/pager.tsx).
    queryFn: async () => ({ ...(await identityApi.users(search, start, limit)), shownStart: start }),
    placeholderData: keepPreviousData,
  });

  const apply = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    setSearch(String(data.get('search') ?? '').trim());
    setStart(0);
  };

  return (
    <>
      <h1>Users</h1>
      <form class="toolbar" aria-label="Search users" onSubmit={apply}>
        <label class="inline-label">
          Search
          <input name="search" type="search" maxLength={256} autoComplete="off" />
        </label>
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      <p class="hint">Finds text in the login name, e-mail address, first or last name, ignoring case.</p>
      <ErrorMessage error={users.error} />
      {users.isPending && <p aria-busy="true">Loading…</p>}
      {users.data && users.data.total === 0 && <p>No user matches.</p>}
      {users.data && users.data.items.length > 0 && (
        <table class="grid" aria-label="Users">
          <thead>
            <tr>
              <th scope="col">Login name</th>
              <th scope="col">Name</th>
              <th scope="col">E-mail</th>
              <th scope="col">Roles</th>
              <th scope="col">Organisations</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {users.data.items.map((u) => (
              <tr key={u.loginName}>
                <td>
                  <a href={href(`/users/${encodeURIComponent(u.loginName)}`)}>{u.loginName}</a>
                </td>
                <td>{[u.firstName, u.lastName].filter(Boolean).join(' ')}</td>
                <td>{u.email}</td>
                <td>{u.roles.join(', ')}</td>
                <td>{u.organisations.join(', ')}</td>
                <td>{u.active ? 'Active' : 'Inactive'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {users.data && (
        <Pager
          start={start}
          limit={limit}
          total={users.data.total}
          shown={{ start: users.data.shownStart, count: users.data.items.length }}
          onStart={setStart}
          onLimit={(l) => {
            setLimit(l);
            setStart(0);
          }}
        />
      )}
    </>
  );
}
