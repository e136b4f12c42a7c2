// The shell: the session, the header with the navigation and `Log out`, and the page of the current route.
import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { api, onSessionExpired, type SessionRecord } from './api';
import { currentLocation, navigate, useLocation } from './router';
import { HOME_PATH, LOGIN_PATH, LoginPage } from './routes';
import { Header } from './components/header';
import { PageOutlet } from './components/page-outlet';

/** `/login?next=<where the user was>`. */
function loginPathFor(path: string, query: URLSearchParams): string {
  const here = query.toString() ? `${path}?${query}` : path;
  return here === '/' || here.startsWith(LOGIN_PATH) ? LOGIN_PATH : `${LOGIN_PATH}?next=${encodeURIComponent(here)}`;
}

export function App() {
  const location = useLocation();
  const queryClient = useQueryClient();
  // undefined: not known yet (the session check runs); null: no session.
  const [session, setSession] = useState<SessionRecord | null | undefined>(undefined);

  useEffect(() => {
    api.session().then(
      (s) => setSession(s ?? null),
      () => setSession(null),
    );
    return onSessionExpired(() => {
      setSession(null);
      queryClient.clear();
      const { path, query } = currentLocation();
      navigate(loginPathFor(path, query), true);
    });
  }, [queryClient]);

  const onLogin = (path: string) => {
    return (s: SessionRecord) => {
      setSession(s);
      const next = currentLocation().query.get('next');
      navigate(next?.startsWith('/') && !next.startsWith(LOGIN_PATH) ? next : path, true);
    };
  };

  const onLogout = async () => {
    try {
      await api.logout();
    } finally {
      setSession(null);
      queryClient.clear();
      navigate(LOGIN_PATH, true);
    }
  };

  // A layout effect runs in the same task as the render it follows, before the browser paints: the login page never
  // shows under the deep link it replaces (a plain effect waits for the next frame, up to 100 ms in a busy browser,
  // and a reload or a copied URL in that window lost the `next` the user wanted).
  useLayoutEffect(() => {
    if (session === undefined) return;
    const onLoginPage = location.path === LOGIN_PATH;
    if (!session && !onLoginPage) navigate(loginPathFor(location.path, location.query), true);
    else if (session && (onLoginPage || location.path === '/')) navigate(HOME_PATH, true);
  }, [session, location]);

  if (session === undefined) {
    return (
      <main id="main" class="page" aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  }
  if (!session) return <LoginPage onLogin={onLogin(HOME_PATH)} />;
  return (
    <>
      <Header session={session} path={location.path} onLogout={onLogout} />
      <PageOutlet session={session} path={location.path} />
    </>
  );
}
