// The rules of assets against their template (decisions section 9): attribute keys, types, required values and enum
// values; which version is ACTIVE after an update (the spec's "States and transitions"); the asset as answered.
import { DM_ERRORS } from '../dm.errors.js';
import { fitsAttribute, isGiven } from '../attribute-values.js';
import type { Attribute } from '../templates/template.schema.js';
import type { VersionData } from './asset.schema.js';

/** The parts of a stored template the asset rules read. */
export interface TemplateDoc {
  id: number;
  customId: string;
  attributes: Attribute[];
  actions: Array<{
    key: string;
    scope: 'asset' | 'template';
    parameters?: Attribute[];
    handler?: Record<string, unknown>;
    label?: string;
  }>;
  childTemplates: string[];
  restricted: boolean;
  roles: string[];
}

export type ActivationPolicy = 'true' | 'false' | 'ifHEADActive';

/**
 * Whether a new version becomes ACTIVE. Without the 'inactive versions' feature the newest version is always active;
 * with it, `true` activates it, `false` keeps the active one, `ifHEADActive` activates it only if the previous HEAD
 * was the active version.
 */
export function activatesNewVersion(
  inactiveVersions: boolean,
  policy: ActivationPolicy,
  headWasActive: boolean,
): boolean {
  if (!inactiveVersions) return true;
  if (policy === 'true') return true;
  if (policy === 'false') return false;
  return headWasActive;
}

/**
 * Merges written attributes into the current ones (a key written as null is removed) and checks every written key and
 * value against the template: the key is one of its attributes, in the right map (versioned or unversioned), the
 * value of its type. Required attributes must be given in the result unless `requiredOverride`.
 */
export function mergeAttributes(
  template: TemplateDoc,
  current: { attributes: Record<string, unknown>; unversioned: Record<string, unknown> },
  written: { attributes?: Record<string, unknown>; unversioned?: Record<string, unknown> },
  options: { requiredOverride: boolean; defaults: boolean },
): { attributes: Record<string, unknown>; unversioned: Record<string, unknown> } {
  const byKey = new Map(template.attributes.map((a) => [a.key, a]));
  const merge = (
    base: Record<string, unknown>,
    given: Record<string, unknown> | undefined,
    versioned: boolean,
    field: string,
  ) => {
    const out: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(given ?? {})) {
      const d = byKey.get(key);
      if (!d)
        throw DM_ERRORS.invalidCall(
          `asset/${field}/${key.slice(0, 100)}: template ${template.customId} has no attribute ${key.slice(0, 100)}`,
          { attribute: key.slice(0, 100) },
        );
      if ((d.versioned !== false) !== versioned) {
        throw DM_ERRORS.invalidCall(
          `asset/${field}/${key}: ${key} is ${versioned ? 'unversioned; write it in unversionedAttributes' : 'versioned; write it in attributes'}`,
          { attribute: key },
        );
      }
      if (value === null) {
        delete out[key];
        continue;
      }
      if (!fitsAttribute(d, value)) {
        throw DM_ERRORS.invalidCall(
          `asset/${field}/${key}: must be ${d.type === 'enum' ? `one of the values of ${key}` : `of type ${d.type}`}`,
          { attribute: key },
        );
      }
      out[key] = value;
    }
    return out;
  };
  const attributes = merge(current.attributes, written.attributes, true, 'attributes');
  const unversioned = merge(current.unversioned, written.unversioned, false, 'unversionedAttributes');
  for (const d of template.attributes) {
    const target = d.versioned === false ? unversioned : attributes;
    if (options.defaults && !Object.hasOwn(target, d.key) && d.default !== undefined && d.default !== null)
      target[d.key] = d.default;
    if (d.required && !options.requiredOverride && !isGiven(target[d.key])) {
      throw DM_ERRORS.invalidCall(`asset: the required attribute ${d.key} is missing`, { attribute: d.key });
    }
  }
  return { attributes, unversioned };
}

/** Whether two versions hold the same data (`onlyIfChanged`). */
export function sameData(a: VersionData, b: VersionData): boolean {
  return (
    a.displayName === b.displayName &&
    a.description === b.description &&
    canonical(a.attributes) === canonical(b.attributes)
  );
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export const isoDate = (ms: number): string => new Date(ms).toISOString();

/** The asset as answered, at one version. */
export function assetDoc(a: {
  id: number;
  customId: string | null;
  template: { id: number; customId: string };
  parentId: number | null;
  data: VersionData;
  unversioned: Record<string, unknown>;
  version: { updatedOn: number; updatedBy: string; comment: string; active: boolean };
  createdOn: number;
  createdBy: string;
}): Record<string, unknown> {
  return {
    id: a.id,
    customId: a.customId,
    template: a.template,
    displayName: a.data.displayName,
    description: a.data.description,
    parentId: a.parentId,
    attributes: a.data.attributes,
    unversionedAttributes: a.unversioned,
    version: {
      updatedOn: isoDate(a.version.updatedOn),
      updatedBy: a.version.updatedBy,
      comment: a.version.comment,
      active: a.version.active,
    },
    createdOn: isoDate(a.createdOn),
    createdBy: a.createdBy,
  };
}

/** The document the value index of an ACTIVE version is built from: the fields a query names, unversioned attributes with the others. */
export function indexDoc(doc: Record<string, unknown>): Record<string, unknown> {
  return {
    id: doc.id,
    customId: doc.customId,
    displayName: doc.displayName,
    description: doc.description,
    parentId: doc.parentId,
    template: doc.template,
    attributes: { ...(doc.unversionedAttributes as object), ...(doc.attributes as object) },
  };
}

/** The keys of the attributes the template marks hidden (when `hidden`) or whose group's first level is in `groups`. */
export function leftOut(template: TemplateDoc, hidden: boolean, groups: ReadonlySet<string>): Set<string> {
  return new Set(
    template.attributes
      .filter((a) => (hidden && a.hidden) || (a.group !== undefined && groups.has(a.group.split('/')[0])))
      .map((a) => a.key),
  );
}

/** The answer without the attributes named in `drop`. */
export function withoutKeys(doc: Record<string, unknown>, drop: ReadonlySet<string>): Record<string, unknown> {
  if (drop.size === 0) return doc;
  const keep = (o: unknown) =>
    o && typeof o === 'object' ? Object.fromEntries(Object.entries(o).filter(([k]) => !drop.has(k))) : o;
  return { ...doc, attributes: keep(doc.attributes), unversionedAttributes: keep(doc.unversionedAttributes) };
}

/** The answer without the attributes the template marks hidden (`withoutHiddenAttributes`). */
export const withoutHidden = (doc: Record<string, unknown>, template: TemplateDoc): Record<string, unknown> =>
  withoutKeys(doc, leftOut(template, true, new Set()));
