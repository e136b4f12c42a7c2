/** Row shapes of the forms module's tables, as Kysely sees them. */
export interface FormHeadRow {
  tenant_id: string;
  form_id: string;
  issued_version: number;
  latest_version: number;
}

export interface FormVersionRow {
  tenant_id: string;
  form_id: string;
  version: number;
  name: string;
  /** The form's `config` entry as JSON text, metaData already carrying the true id and version. */
  config: string;
  created_on: number;
  created_by: string;
}

export interface FormsTables {
  form_heads: FormHeadRow;
  form_versions: FormVersionRow;
}

/** One stored version as the read path selects it. */
export type StoredForm = Pick<FormVersionRow, 'form_id' | 'version' | 'name' | 'config' | 'created_on' | 'created_by'>;
