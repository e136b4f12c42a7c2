import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { SessionRecord } from '../api';
import { matchPath } from '../router';
import { type PageProps, type Route, ROUTES } from '../routes';

interface Props {
  session: SessionRecord;
  path: string;
}

/** The page of the current path, loaded on first use; a page the session may not see answers as an unknown one. */
export function PageOutlet({ session, path }: Props) {
  let route: Route | undefined;
  let params: Record<string, string> = {};
  for (const r of ROUTES) {
    const m = matchPath(r.path, path);
    if (m && (!r.allowed || r.allowed(session))) {
      route = r;
      params = m;
      break;
    }
  }
  const [loaded, setLoaded] = useState<{ route: Route; Page: ComponentType<PageProps> } | undefined>(undefined);
  const [failed, setFailed] = useState<string | undefined>(undefined);

  useEffect(() => {
    if (!route) return;
    document.title = `${route.title} · Console`;
    if (loaded?.route === route) return;
    let live = true;
    setFailed(undefined);
    route.load().then(
      (Page) => live && setLoaded({ route: route!, Page }),
      (err: unknown) => live && setFailed(String(err)),
    );
    return () => {
      live = false;
    };
  }, [route, loaded]);

  if (!route) {
    return (
      <main id="main" class="page" tabIndex={-1}>
        <h1>Page not found</h1>
        <p>There is no page at {path}, or you may not see it.</p>
      </main>
    );
  }
  if (failed) {
    return (
      <main id="main" class="page" tabIndex={-1}>
        <h1>{route.title}</h1>
        <p role="alert">The page could not be loaded: {failed}</p>
      </main>
    );
  }
  if (!loaded || loaded.route !== route) {
    return (
      <main id="main" class="page" tabIndex={-1} aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  }
  const { Page } = loaded;
  return (
    <main id="main" class="page" tabIndex={-1}>
      <Page params={params} session={session} />
    </main>
  );
}
