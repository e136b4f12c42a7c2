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

/** A template's image: a PNG of 64 x 64 pixels, as the base64 text it is exchanged in. */
export interface DmTemplateImagesTable {
  scope: string;
  template_id: number;
  png_base64: string;
}

export interface DmTables {
  dm_templates: DmTemplatesTable;
  dm_template_images: DmTemplateImagesTable;
}
