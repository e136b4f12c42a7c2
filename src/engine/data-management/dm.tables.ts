import type { Generated } from 'kysely';

/** Templates of the data management API; `doc` is the template as answered, without its id. */
export interface DmTemplatesTable {
  id: Generated<number>;
  scope: string;
  custom_id: string;
  name: string;
  doc: string;
  created_on: number;
  updated_on: number;
}

export interface DmTables {
  dm_templates: DmTemplatesTable;
}
