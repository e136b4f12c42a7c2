// Reading assets for a query or an action: the filters and sorters over the value index of the ACTIVE versions
// (platform/query; with a walk of the sort's index that stops after the page), and the answers at a
// verbosity.
import type { Kysely, RawBuilder, SqlBool } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import { extendObject } from '../../../platform/http/json-text.js';
import { type FieldTarget, isRangeOperator } from '../../../platform/query/index.js';
import type { SortMode } from '../attribute-values.js';
import { compileDmQuerySets, type Filters, type Sorters } from '../dm-query.js';
import type { DmTables } from '../dm.tables.js';
import type { Caller } from '../method.js';
import type { TemplateRef, TemplatesRepository } from '../templates/templates.repository.js';
import { leftOut, withoutKeys, type TemplateDoc } from './asset-rules.js';
import type { GroupPatterns } from './group-patterns.js';
import {
  ASSET_UNIVERSE,
  type AssetPage,
  type AssetQuery,
  type AssetsRepository,
  type PageDocs,
} from './assets.repository.js';

type Db = Kysely<DmTables>;

/** Page size of a query, at most (as the storage list). */
const MAX_LIMIT = 10_000;
/** Properties a query may name besides `attributes.<key>`. */
const KNOWN =
  'id, customId, displayName, description, parentId, template.id, template.customId, updatedOn, createdOn, createdBy, attributes.<key>';
const SORT_KEYS: Record<SortMode, string> = { '': 'str', ci: 'ci', user: 'usr', user_ci: 'uci' };

export class AssetReads {
  constructor(
    private readonly repo: AssetsRepository,
    private readonly templates: TemplatesRepository,
    private readonly dialect: Dialect,
    private readonly templateOf: (db: Db, ref: TemplateRef) => Promise<TemplateDoc>,
  ) {}

  /** What a query may name, for the asset aliased `a` (sorts of strings by the sort mode's key). */
  private resolverOf(sortMode: SortMode) {
    const stringKey = SORT_KEYS[sortMode];
    const indexed = (path: string[]): FieldTarget => ({ kind: 'indexed', path, source: this.repo.source, stringKey });
    const fields: Record<string, FieldTarget> = {
      id: { kind: 'column', column: 'a.seq', type: 'number' },
      customId: indexed(['customId']),
      displayName: indexed(['displayName']),
      description: indexed(['description']),
      parentId: indexed(['parentId']),
      'template.id': indexed(['template', 'id']),
      'template.customId': indexed(['template', 'customId']),
      updatedOn: { kind: 'column', column: 'a.active_on', type: 'datetime' },
      createdOn: { kind: 'column', column: 'a.created_on', type: 'datetime' },
      createdBy: { kind: 'column', column: 'a.created_by', type: 'text' },
    };
    return (property: string): FieldTarget | null => {
      if (Object.hasOwn(fields, property)) return fields[property];
      if (property.startsWith('attributes.') && property.length > 'attributes.'.length)
        return indexed(['attributes', property.slice('attributes.'.length)]);
      return null;
    };
  }

  /**
   * One page of the assets the filters and sorters select, and the total; with `attach` (pageDocsFor the answers'
   * verbosity), their documents come with the page, in the same statement (answers then reads none).
   */
  readonly select = async (
    db: Db,
    caller: Caller,
    p: {
      filters?: Filters;
      sorters?: Sorters;
      sortMode?: SortMode;
      restricted?: boolean;
      start?: number;
      limit?: number;
    },
    method: string,
    attach?: PageDocs,
  ): Promise<AssetPage> => {
    const start = p.start ?? 0;
    const limit = Math.min(p.limit ?? 1000, MAX_LIMIT);
    // Who may read (hidden templates) is the caller's roles where `restricted`, the same for every caller otherwise.
    const readers = p.restricted === true ? caller.roles : undefined;
    const request = JSON.stringify([
      p.filters ?? [],
      p.sorters ?? [],
      p.sortMode ?? '',
      readers ?? null,
      start,
      limit,
      attach ?? null,
    ]);
    const kept = await this.repo.lists.kept(db, request);
    if (kept) return kept;
    const resolve = this.resolverOf(p.sortMode ?? '');
    // Sorted by one indexed value: the filters also as a condition on one asset, for a walk of the sort's index rows.
    const sorter = p.sorters?.length === 1 ? p.sorters[0] : undefined;
    const target = sorter && resolve(sorter.property);
    const walked = sorter !== undefined && target?.kind === 'indexed';
    // A walked query counts its matches in the walk's guards, where a plan for a range's bounds always cost less than
    // PostgreSQL's generic plan (a third of the rows), so it planned the guards at every run (price >= 900: 0.65-1.5
    // ms): the set's values are written as the generic plan sees them, and it keeps that plan. Only with a range:
    // equality shapes kept their generic plan already, and their SQL stays as it was.
    const generic = walked && (p.filters ?? []).some((f) => isRangeOperator(f.operator));
    // A walked query's condition on one asset comes from the same parse as its set.
    const { where, ...compiled }: AssetQuery & { where?: RawBuilder<SqlBool> } = compileDmQuerySets(
      this.dialect,
      resolve,
      KNOWN,
      method,
      this.repo.source,
      ASSET_UNIVERSE,
      p.filters,
      p.sorters,
      generic,
      walked ? 'byKey' : undefined,
    );
    compiled.filterPaths = (p.filters ?? []).flatMap((f) => {
      const t = resolve(f.property);
      return t?.kind === 'indexed' ? [t.path.join('.')] : [];
    });
    if (walked)
      compiled.walk = {
        path: target.path.join('.'),
        direction: sorter.direction ?? 'ASC',
        stringKey: target.stringKey ?? 'str',
        where,
        // What the guards and the count depend on, the sort's direction aside; who may read, for hidden templates.
        key: JSON.stringify([p.filters ?? [], target.path, target.stringKey ?? 'str', readers ?? null]),
      };
    return this.repo.lists.query(
      db,
      compiled,
      // Templates whose assets the caller does not see: restricted ones, unless `restricted` and a role matches.
      this.templates.hiddenIds(readers),
      start,
      limit,
      attach,
      request,
    );
  };

  /** What a page should bring for the answers at a verbosity (answers' `page`). */
  static pageDocsFor(verbosity: number): PageDocs {
    return AssetReads.withChildren(verbosity) ? 'docsAndChildren' : 'docs';
  }

  private static withChildren(verbosity: number): boolean {
    return verbosity === 1 || verbosity === 2 || verbosity === 5;
  }

  /**
   * The answers of assets at a verbosity, as JSON text. `page`: a page of select that brought the documents (and
   * children) the verbosity needs (pageDocsFor), so that none are read again.
   */
  readonly answers = async (
    db: Db,
    ids: number[],
    o: { verbosity: number; hidden: boolean; groups?: GroupPatterns; page?: AssetPage },
  ): Promise<string[]> => {
    const withChildren = AssetReads.withChildren(o.verbosity);
    const brought = o.page?.docs && (!withChildren || o.page.children) ? o.page : undefined;
    const { docs, children } = brought
      ? { docs: brought.docs!, children: brought.children ?? new Map<number, number[]>() }
      : withChildren
        ? await this.repo.docsAndChildren(db, ids)
        : { docs: await this.repo.docs(db, ids), children: new Map<number, number[]>() };
    const present = ids.filter((id) => docs.has(id));
    const trimmed = o.hidden || o.groups !== undefined || o.verbosity === 0 || o.verbosity === 5;
    /** The attribute keys left out of each template's assets: its groups are matched once per request, not per asset. */
    const dropped = new Map<number, Set<string>>();
    const droppedOf = async (tid: number): Promise<Set<string>> => {
      let keys = dropped.get(tid);
      if (!keys) {
        const template = await this.templateOf(db, { id: tid });
        const groups = new Set<string>();
        for (const a of template.attributes) {
          const first = a.group?.split('/')[0];
          if (first !== undefined && o.groups && (await o.groups.matches(first))) groups.add(first);
        }
        keys = leftOut(template, o.hidden, groups);
        dropped.set(tid, keys);
      }
      return keys;
    };
    const shape = async (text: string): Promise<Record<string, unknown> | string> => {
      if (!trimmed) return text;
      let doc = JSON.parse(text) as Record<string, unknown>;
      if (o.hidden || o.groups) doc = withoutKeys(doc, await droppedOf((doc.template as { id: number }).id));
      if (o.verbosity === 0) {
        const { attributes: _a, unversionedAttributes: _u, ...rest } = doc;
        return rest;
      }
      return doc;
    };
    const childAnswers = new Map<number, string>();
    if (o.verbosity === 2) {
      const childIds = [...children.values()].flat();
      const childDocs = await this.repo.docs(db, childIds);
      for (const id of childIds) {
        const d = childDocs.get(id);
        if (d) {
          const s = await shape(d);
          childAnswers.set(id, typeof s === 'string' ? s : JSON.stringify(s));
        }
      }
    }
    const out: string[] = [];
    for (const id of present) {
      const shaped = await shape(docs.get(id)!);
      const kids = children.get(id) ?? [];
      if (o.verbosity === 5) {
        const d = shaped as Record<string, unknown>;
        const text = (d.displayName as string) || (d.customId as string | null) || String(d.id);
        out.push(
          JSON.stringify({
            id: d.id,
            text,
            customId: d.customId,
            template: d.template,
            parentId: d.parentId,
            leaf: kids.length === 0,
            childCount: kids.length,
            expanded: false,
          }),
        );
        continue;
      }
      const text = typeof shaped === 'string' ? shaped : JSON.stringify(shaped);
      if (o.verbosity === 1) out.push(extendObject(text, [['joinedChildAssetIds', JSON.stringify(kids)]]));
      else if (o.verbosity === 2)
        out.push(
          extendObject(text, [
            ['childAssets', `[${kids.flatMap((k) => (childAnswers.has(k) ? [childAnswers.get(k)!] : [])).join(',')}]`],
          ]),
        );
      else out.push(text);
    }
    return out;
  };
}
