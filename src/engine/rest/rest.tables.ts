import type { Generated } from 'kysely';

/** Shared data of the process engine (tasks, reports), each item assigned roles. */
export interface EngineItemsTable {
  seq: Generated<number>;
  /** The tenant of the Process User Server whose users the data is shared with. */
  scope: string;
  kind: string;
  id: string;
  /** `{"id","name","roles","data"}` as JSON text, spliced into answers. */
  doc: string;
  created_on: number;
  created_by: string;
}

/** One row per assigned role: role matching is a range lookup on this key. */
export interface EngineItemRolesTable {
  scope: string;
  kind: string;
  role: string;
  item_seq: number;
}

export interface RestTables {
  engine_items: EngineItemsTable;
  engine_item_roles: EngineItemRolesTable;
}
