import type { SessionRecord } from '../api';
import { href, matchPath } from '../router';
import { ROUTES } from '../routes';
import { NotificationBell } from './notification-bell';

interface Props {
  session: SessionRecord;
  path: string;
  onLogout: () => void;
}

/** The header: the console's name, the pages this session may see, who is logged in and `Log out`. */
export function Header({ session, path, onLogout }: Props) {
  const pages = ROUTES.filter((r) => r.nav && (!r.allowed || r.allowed(session)));
  return (
    <header class="app-header">
      <button type="button" class="skip-link" onClick={skipToMain}>
        Skip to content
      </button>
      <span class="brand">Console</span>
      <nav aria-label="Main">
        <ul>
          {pages.map((r) => {
            const current = path === r.path || path.startsWith(`${r.path}/`) || !!matchPath(r.path, path);
            return (
              <li key={r.path}>
                <a href={href(r.path)} aria-current={current ? 'page' : undefined}>
                  {r.nav}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      <span class="who" title="Logged in as">
        {session.loginName}
      </span>
      <NotificationBell />
      <button type="button" onClick={onLogout}>
        Log out
      </button>
    </header>
  );
}

/** A hash link to #main would be taken for a route (hash routing): a button moves the focus instead. */
function skipToMain() {
  document.getElementById('main')?.focus();
}
