// Pure rules of a store item: from a written body to the stored document, restrictions to access rows,
// the principal to its grantee keys. No I/O here, so the rules are unit-tested beside this file.
import type { Principal } from '../../platform/auth/principal.js';
import { STORAGE_ERRORS } from './storage.errors.js';
import type { Restriction, StoreItemBody } from './storage.schemas.js';

/** Deepest nesting accepted in `value` and in `customFields` (a deeper body answers 400). */
export const MAX_DEPTH = 64;

/** Root fields of an item; any other root field of a written body goes into customFields. */
const NAMED_FIELDS = new Set([
  'id',
  'moduleId',
  'moduleInstanceId',
  'name',
  'value',
  'favorite',
  'readRestriction',
  'writeRestriction',
  'customFields',
]);
/**
 * Root fields of the document the value index covers. The restrictions, also inside the document, are answered by
 * reading it: the access table decides who may read, and a filter on them is rare (their rows would be a third of an
 * item's index rows and writes).
 */
export const INDEXED_FIELDS: ReadonlySet<string> = new Set([
  'moduleId',
  'moduleInstanceId',
  'name',
  'value',
  'favorite',
  'customFields',
]);
/** Root fields of the document a query can name. */
export const DOCUMENT_FIELDS: ReadonlySet<string> = new Set([...INDEXED_FIELDS, 'readRestriction', 'writeRestriction']);
/** Fields the service sets: a client that writes back an item it read must not find them in customFields. */
const SERVER_FIELDS = new Set(['createdOn', 'createdBy', 'updatedOn', 'updatedBy']);

/** A restriction as saved: either only `user`, or the non-empty lists. */
export interface StoredRestriction {
  user?: string;
  organisations?: string[];
  roles?: string[];
  rights?: string[];
}

/** The written fields of an item as kept in the `doc` column; absent optional fields are absent here. */
export interface ItemDocument {
  id: string;
  moduleId?: string;
  moduleInstanceId?: string;
  name?: string;
  value: unknown;
  favorite: boolean;
  readRestriction: StoredRestriction;
  writeRestriction: StoredRestriction;
  customFields: Record<string, unknown>;
}

const LISTS = ['organisations', 'roles', 'rights'] as const;

/** Keeps only `user` when it is set, else the non-empty lists (deduplicated); null when nothing is set. */
export function normalizeRestriction(r: Restriction | undefined | null): StoredRestriction | null {
  if (!r || typeof r !== 'object') return null;
  if (typeof r.user === 'string' && r.user !== '') return { user: r.user };
  const out: StoredRestriction = {};
  for (const key of LISTS) {
    const list = r[key];
    if (Array.isArray(list) && list.length > 0) out[key] = [...new Set(list)];
  }
  return Object.keys(out).length ? out : null;
}

/** True when `root` nests objects/arrays deeper than `max` levels. Iterative: no stack to overflow. */
export function exceedsDepth(root: unknown, max: number): boolean {
  // Two stacks side by side and indexed loops (as documentIndex's walk): every write runs this.
  const nodes: unknown[] = [root];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (let i = 0; i < children.length; i++) {
      const child: unknown = children[i];
      if (child === null || typeof child !== 'object') continue;
      nodes.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}

/**
 * Builds the stored document of a written body: 406 when value or a restriction is missing or sets
 * nothing; 400 when value or customFields nest too deep. The id is the service's, never the body's.
 */
export function buildDocument(id: string, body: StoreItemBody): ItemDocument {
  const readRestriction = normalizeRestriction(body.readRestriction);
  const writeRestriction = normalizeRestriction(body.writeRestriction);
  const missing: string[] = [];
  if (!Object.hasOwn(body, 'value') || body.value === undefined) missing.push('value');
  if (!readRestriction) missing.push('readRestriction');
  if (!writeRestriction) missing.push('writeRestriction');
  if (missing.length) throw STORAGE_ERRORS.mandatoryFieldsMissing(missing);

  // Unknown root fields first, so an explicit customFields entry of the same name wins.
  const customFields: Record<string, unknown> = {};
  const fields = Object.keys(body);
  for (let i = 0; i < fields.length; i++) {
    const key = fields[i];
    if (!NAMED_FIELDS.has(key) && !SERVER_FIELDS.has(key)) customFields[key] = (body as Record<string, unknown>)[key];
  }
  if (body.customFields) Object.assign(customFields, body.customFields);

  if (exceedsDepth(body.value, MAX_DEPTH)) throw STORAGE_ERRORS.nestingTooDeep('value', MAX_DEPTH);
  if (exceedsDepth(customFields, MAX_DEPTH)) throw STORAGE_ERRORS.nestingTooDeep('customFields', MAX_DEPTH);

  // The optional fields right after the id: a read finds which are present by scanning the text only up to them
  // (item-json.ts), where they came last before. Set one by one: a spread of them took a runtime call a write.
  const doc = { id } as ItemDocument;
  if (typeof body.moduleId === 'string') doc.moduleId = body.moduleId;
  if (typeof body.moduleInstanceId === 'string') doc.moduleInstanceId = body.moduleInstanceId;
  if (typeof body.name === 'string') doc.name = body.name;
  doc.value = body.value;
  doc.favorite = body.favorite ?? false;
  doc.readRestriction = readRestriction!;
  doc.writeRestriction = writeRestriction!;
  doc.customFields = customFields;
  return doc;
}

const KIND = { organisations: 'org', roles: 'role', rights: 'right' } as const;

/** The access keys a restriction grants: `user:<login>`, `org:<o>`, `role:<r>`, `right:<r>`. */
export function restrictionGrantees(r: StoredRestriction): string[] {
  if (r.user !== undefined) return [`user:${r.user}`];
  const out: string[] = [];
  for (let k = 0; k < LISTS.length; k++) {
    const names = r[LISTS[k]];
    if (names === undefined) continue;
    const kind = KIND[LISTS[k]];
    for (let i = 0; i < names.length; i++) out.push(`${kind}:${names[i]}`);
  }
  return out;
}

/** The (mode, grantee) pairs of an item's restrictions: its access rows (storage_item_access). */
export function accessGrants(doc: ItemDocument): Array<['r' | 'w', string]> {
  const out: Array<['r' | 'w', string]> = [];
  const read = restrictionGrantees(doc.readRestriction);
  for (let i = 0; i < read.length; i++) out.push(['r', read[i]]);
  const write = restrictionGrantees(doc.writeRestriction);
  for (let i = 0; i < write.length; i++) out.push(['w', write[i]]);
  return out;
}

/** The access keys a principal holds; organisations are the active ones only (the Principal holds no others). */
export function principalGrantees(p: Principal): string[] {
  const out = [`user:${p.loginName}`];
  for (const o of p.organisations) out.push(`org:${o}`);
  for (const r of p.roles) out.push(`role:${r}`);
  for (const r of p.rights) out.push(`right:${r}`);
  return [...new Set(out)];
}
