import type { Visibility } from './notification.js';

/** The cache key of a caller's page: who it is as far as visibility goes, and the page. */
export function listKey(v: Visibility, start: number, limit: number): string {
  const who = v.all
    ? '*'
    : `${v.user}\u0001${[...v.roles].sort().join('\u0002')}\u0001${[...v.organisations].sort().join('\u0002')}`;
  return `${who}\u0001${start}\u0001${limit}`;
}
