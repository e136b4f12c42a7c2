// One user of the tenant (TENANT_ADMIN): details, roles, organisations and rights (saved with one update), live
// sessions with "End" and "End all", a new password (which ends the sessions), deactivate / activate, unlock, delete.
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { AccountActions } from '../components/identity/account-actions';
import { PasswordForm } from '../components/identity/password-form';
import { UserDetailsForm } from '../components/identity/user-details-form';
import { UserSessions } from '../components/identity/user-sessions';
import { ErrorMessage } from '../components/error-message';
import { type AdminUser, identityApi } from '../identity-api';
import { href } from '../router';
import type { PageProps } from '../routes';
import './admin-pages.css';
import './identity-pages.css';

export function UserPage({ params }: PageProps) {
  const loginName = params.loginName;
  const queryClient = useQueryClient();
  const key = ['admin-user', loginName];
  const user = useQuery({ queryKey: key, queryFn: () => identityApi.user(loginName) });
  const changed = (next: AdminUser) => {
    queryClient.setQueryData(key, next);
    void queryClient.invalidateQueries({ queryKey: ['admin-users'] });
  };

  return (
    <>
      <p class="breadcrumb">
        <a href={href('/users')}>Users</a>
      </p>
      <h1>User {loginName}</h1>
      <ErrorMessage error={user.error} />
      {user.isPending && <p aria-busy="true">Loading…</p>}
      {user.data && (
        <div class="identity-columns">
          <UserDetailsForm user={user.data} onSaved={changed} />
          <div>
            <AccountActions user={user.data} onChanged={changed} />
            <PasswordForm loginName={loginName} />
          </div>
          <UserSessions loginName={loginName} />
        </div>
      )}
    </>
  );
}
