// An asset's ACTIVE answer as value index rows (platform/query's documentIndex over asset-rules' index document, with
// the sort keys of strings), which paths changed between two answers, and the answer as stored (without its id).
import { documentIndex, VALUE_KIND } from '../../../platform/query/index.js';
import { sortKeys } from '../attribute-values.js';
import { indexDoc } from './asset-rules.js';

/** The top-level fields of an index document (asset-rules.ts indexDoc); `id` is the key column `seq`. */
const INDEX_ROOTS = new Set(['customId', 'displayName', 'description', 'parentId', 'template', 'attributes']);

export function stored(doc: Record<string, unknown>): string;
export function stored(doc: Record<string, unknown>, asText: false): Record<string, unknown>;
export function stored(doc: Record<string, unknown>, asText = true): string | Record<string, unknown> {
  const { id: _id, ...rest } = doc;
  return asText ? JSON.stringify(rest) : rest;
}

export type IndexRow = [
  path: string,
  t: number,
  elem: number,
  num: number | null,
  str: string | null,
  ci: string | null,
  usr: string | null,
  uci: string | null,
];

/** The value index rows of an answer, with the sort keys of strings; `complete` false beyond the index's caps. */
export function indexRows(doc: Record<string, unknown>): { complete: boolean; rows: IndexRow[] } {
  const index = documentIndex(indexDoc(doc), INDEX_ROOTS, { words: false, markers: true });
  return {
    complete: index.complete,
    rows: index.rows.map(([path, t, elem, num, str]) => {
      const keys = t === VALUE_KIND.string && str !== null ? sortKeys(str) : undefined;
      return [path, t, elem, num, str, keys?.ci ?? null, keys?.user ?? null, keys?.userCi ?? null];
    }),
  };
}

/** The paths whose rows differ between two sets of rows. */
export function changedPaths(before: IndexRow[], after: IndexRow[]): Set<string> {
  const byPath = (rows: IndexRow[]) => {
    const m = new Map<string, string[]>();
    for (const r of rows) {
      const list = m.get(r[0]) ?? [];
      list.push(JSON.stringify(r));
      m.set(r[0], list);
    }
    return new Map([...m].map(([k, v]) => [k, v.sort().join('\n')]));
  };
  const a = byPath(before);
  const b = byPath(after);
  const changed = new Set<string>();
  for (const [path, text] of a) if (b.get(path) !== text) changed.add(path);
  for (const path of b.keys()) if (!a.has(path)) changed.add(path);
  return changed;
}
