// One page of an asset query as a statement and its rows (AssetLists): the page's ids in order, with its total, and
// where asked for, the assets' documents and their children's ids, read by the same statement (a union of row kinds).
import { sql, type CompiledQuery, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import { preparedOnServer } from '../../../platform/db/prepared-query.js';
import type { DmTables } from '../dm.tables.js';
import type { Guards } from './asset-walk-sql.js';

type Db = Kysely<DmTables>;

/**
 * What a page brings besides its ids, in the same statement: the assets' ACTIVE answers (`docs`), and also the ids of
 * their children (`docsAndChildren`).
 */
export type PageDocs = 'docs' | 'docsAndChildren';

/** One page of a query: ids in order, the total, and the documents (and children) where asked for. */
export interface AssetPage {
  total: number;
  ids: number[];
  /** The answers as JSON text by id (with `id`), where the page brought them. */
  docs?: Map<number, string>;
  /** The children's ids of each asset of the page, in id order, where the page brought them. */
  children?: Map<number, number[]>;
}

/** The stored answer keeps no `id` (it is `seq`, unknown before the insert): spliced in front when read. */
export const withId = (seq: number, stored: string): string => {
  const inner = stored.slice(stored.indexOf('{') + 1).trimStart();
  return inner.startsWith('}') ? `{"id":${seq}}` : `{"id":${seq},${inner}`;
};

export interface PageRows {
  ids: number[];
  /** The page statement's `total` column (of its first row), where it has one and rows came. */
  total?: number;
  /** The walk's guards, where the page statement read them (AssetLists.walk). */
  guards?: Guards;
  docs?: Map<number, string>;
  children?: Map<number, number[]>;
}

/** A page statement compiled (PageStatements.build), and how its rows read. */
export interface PageStatement {
  compiled: CompiledQuery<unknown>;
  /** Rows of kinds (the page, documents, children, guards), or the page's rows alone. */
  union: boolean;
  /** With the total of the matches (the general page counting them). */
  counted: boolean;
  attach?: PageDocs;
  /** With a walk's guards (AssetLists.walk). */
  guarded: boolean;
}

/**
 * The rows of a statement of a query, run as a named prepared statement: its text follows the query's shape (filters,
 * sorters, hidden templates), its values are parameters, so PostgreSQL parses it once per connection and, where its
 * generic plan serves, plans it once (planning was 1.5-2 ms of each query); the connection's statement cache bounds
 * how many shapes it keeps (postgres-statements.ts). SQLite keeps statements by text anyway.
 */
export async function rowsOf<R>(db: Db, statement: RawBuilder<R> | CompiledQuery<R>): Promise<R[]> {
  const compiled = 'isRawBuilder' in statement ? statement.compile(db) : statement;
  return (await db.executeQuery(preparedOnServer(compiled))).rows;
}

/** Page statements of one scope's assets (AssetLists). */
export class PageStatements {
  constructor(
    private readonly scope: string,
    private readonly dialect: Dialect,
  ) {}

  /**
   * A page statement (`seq`, and `total` where `counted`), in its order; with `attach`, the assets' documents (and
   * their children's ids) come in the same statement: the page is kept (a materialized CTE, numbered in its order) and
   * the documents are read for its ids, one round trip and one statement less a query than reading them after it.
   */
  build(
    db: Db,
    page: RawBuilder<unknown> | SelectQueryBuilder<any, any, any>,
    counted: boolean,
    attach: PageDocs | undefined,
    head?: { ctes: RawBuilder<unknown>; rows: RawBuilder<unknown> },
  ): PageStatement {
    const raw = 'isRawBuilder' in page;
    if (!attach && !head)
      return { compiled: raw ? page.compile(db) : page.compile(), union: false, counted, guarded: false };
    const ofPage = (column: string) => this.dialect.inSubquery(sql.ref(column), sql`SELECT q__p.seq FROM q__p`);
    const docs =
      attach !== undefined
        ? sql`UNION ALL SELECT 1, d.seq, NULL, ${this.dialect.jsonText('d.doc')} FROM dm_assets d WHERE d.scope = ${this.scope} AND ${ofPage('d.seq')}`
        : sql``;
    const children =
      attach === 'docsAndChildren'
        ? sql`UNION ALL SELECT 2, c.seq, c.parent_id, NULL FROM dm_assets c WHERE c.scope = ${this.scope} AND ${ofPage('c.parent_id')}`
        : sql``;
    // kind 0: the page's rows (num: the place in the page, total), 1: a document, 2: a child (num: its parent); with
    // `head`, the rows it adds (3 and 4: a walk's guards, AssetLists.walk).
    const compiled =
      sql`WITH ${head ? sql`${head.ctes}, ` : sql``}q__p AS MATERIALIZED (SELECT x.seq, ${counted ? sql`x.total` : sql`0`} AS total, row_number() OVER () AS n FROM ${raw ? sql`(${page})` : page} AS x)
      SELECT 0 AS kind, q__p.seq, q__p.n AS num, CAST(q__p.total AS text) AS text FROM q__p
      ${docs}
      ${children}
      ${head ? sql`UNION ALL ${head.rows}` : sql``}`.compile(db);
    return { compiled, union: true, counted, attach, guarded: head !== undefined };
  }
}

/** Runs a page statement (PageStatements.build) and reads its rows. */
export async function readPage(db: Db, st: PageStatement): Promise<PageRows> {
  const { counted, attach } = st;
  if (!st.union) {
    const rows = (await rowsOf(db, st.compiled)) as Array<{ seq: number | string; total?: number | string }>;
    return {
      ids: rows.map((r) => Number(r.seq)),
      total: counted && rows.length > 0 ? Number(rows[0].total) : undefined,
    };
  }
  const rows = (await rowsOf(db, st.compiled)) as Array<{
    kind: number | string;
    seq: number | string | null;
    num: number | string | null;
    text: string | null;
  }>;
  const order: Array<[number, number]> = [];
  const found = new Map<number, string>();
  const kids = new Map<number, number[]>();
  let total: number | undefined;
  const guards: Partial<Guards> = {};
  const orNull = (v: number | string | null) => (v === null ? null : Number(v));
  for (const r of rows) {
    const kind = Number(r.kind);
    const seq = Number(r.seq);
    if (kind === 0) {
      order.push([Number(r.num), seq]);
      total ??= Number(r.text);
    } else if (kind === 1) found.set(seq, withId(seq, r.text as string));
    else if (kind === 2) {
      const parent = Number(r.num);
      const list = kids.get(parent);
      if (list) list.push(seq);
      else kids.set(parent, [seq]);
    } else if (kind === 3) {
      guards.n = seq;
      guards.max = Number(r.num ?? 0);
      guards.went = Number(r.text) === 1;
    } else {
      guards.first = orNull(r.seq);
      guards.last = orNull(r.num);
      guards.unindexed = r.text !== null;
    }
  }
  order.sort((a, b) => a[0] - b[0]);
  for (const list of kids.values()) list.sort((a, b) => a - b);
  for (const seq of found.keys()) if (!kids.has(seq)) kids.set(seq, []);
  return {
    ids: order.map(([, seq]) => seq),
    total: counted ? total : undefined,
    docs: attach !== undefined ? found : undefined,
    children: attach === 'docsAndChildren' ? kids : undefined,
    guards: st.guarded ? (guards as Guards) : undefined,
  };
}
