// Hash routing (`/console/#/stores/orders`): a deep link reloads index.html, so the service needs no fallback route,
// and the path the user was on survives a reload and a new login.
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  /** The path after `#`, `/stores/orders`. */
  path: string;
  query: URLSearchParams;
}

export function currentLocation(): Location {
  const hash = window.location.hash.replace(/^#/, '') || '/';
  const [path, search = ''] = hash.split('?', 2);
  return { path: path || '/', query: new URLSearchParams(search) };
}

/** The current location, updated on every hash change. */
export function useLocation(): Location {
  const [location, setLocation] = useState(currentLocation);
  useEffect(() => {
    const update = () => setLocation(currentLocation());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return location;
}

export function navigate(path: string, replace = false): void {
  const hash = `#${path}`;
  if (replace) {
    window.history.replaceState(null, '', hash);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    window.location.hash = hash;
  }
}

/** `href` of a link to a console path. */
export const href = (path: string) => `#${path}`;

/** Matches `/stores/:storeId` against `/stores/orders`: `{ storeId: 'orders' }`, or undefined. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) {
      if (!have[i]) return undefined;
      params[want[i].slice(1)] = decodeURIComponent(have[i]);
    } else if (want[i] !== have[i]) return undefined;
  }
  return params;
}
