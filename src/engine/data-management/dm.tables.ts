import type { Generated } from 'kysely';

/** Templates of the data management API; `doc` is the template as answered, without its id. */
export interface DmTemplatesTable {
  id: Generated<number>;
  scope: string;
  custom_id: string;
  name: string;
  doc: string;
  /** 1 when the template is restricted (its assets are left out of queries unless asked for). */
  restricted: Generated<number>;
  created_on: number;
  updated_on: number;
}

/** A template's image: a PNG of 64 x 64 pixels, as the base64 text it is exchanged in. */
export interface DmTemplateImagesTable {
  scope: string;
  template_id: number;
  png_base64: string;
}

/** An asset: its ACTIVE version's answer in `doc` (the document its value index rows come from). */
export interface DmAssetsTable {
  seq: Generated<number>;
  scope: string;
  template_id: number;
  custom_id: string | null;
  parent_id: number | null;
  /** updatedOn (epoch ms) of the newest version (HEAD) and of the ACTIVE one. */
  head_on: number;
  active_on: number;
  created_on: number;
  created_by: string;
  doc: unknown;
  /** 1: the ACTIVE version's rows are in dm_asset_values; 2: beyond the index's caps (queries read `doc`). */
  idx: number;
  /** Counts the writes of the row: a write guarded by the value it read writes only if no other came between. */
  rev: Generated<number>;
}

/** One version of an asset: its versioned data `{displayName, description, attributes}`. */
export interface DmAssetVersionsTable {
  scope: string;
  asset_id: number;
  updated_on: number;
  updated_by: string;
  comment: string;
  data: unknown;
}

/** The value index of the assets' ACTIVE versions, with the sort keys of strings (`ci`, `usr`, `uci`). */
export interface DmAssetValuesTable {
  scope: string;
  item_seq: number;
  path: string;
  t: number;
  elem: number;
  num: number | null;
  str: string | null;
  ci: string | null;
  usr: string | null;
  uci: string | null;
}

/** A query an engine user saved (`getQueries`). */
export interface DmSavedQueriesTable {
  scope: string;
  user_name: string;
  name: string;
  query: unknown;
  updated_on: number;
}

export interface DmTables {
  dm_templates: DmTemplatesTable;
  dm_template_images: DmTemplateImagesTable;
  dm_assets: DmAssetsTable;
  dm_asset_versions: DmAssetVersionsTable;
  dm_asset_values: DmAssetValuesTable;
  dm_saved_queries: DmSavedQueriesTable;
}
