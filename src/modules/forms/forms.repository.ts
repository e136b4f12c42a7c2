import { sql, type Kysely } from 'kysely';
import { prepareQuery } from '../../platform/db/prepared-query.js';
import type { DataAccess } from '../../platform/db/data-access.js';
import { forTenant } from '../../platform/db/tenant-scope.js';
import { batchedLookup } from '../../platform/db/batched-lookup.js';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import type { FormsTables, StoredForm } from './forms.tables.js';

const FORM_COLUMNS = ['form_id', 'version', 'name', 'config', 'created_on', 'created_by'] as const;

export interface NewVersion {
  name: string;
  /** Renders the config text once the version number is known. */
  config(version: number): string;
  createdBy: string;
  createdOn: number;
}

export type DeleteVersionResult = { deleted: number } | 'no-form' | 'no-version';

/**
 * All SQL of the forms module. Every query names its tenant. Every write of a form first takes the
 * row lock of the form's head row (PostgreSQL; SQLite serialises write transactions anyway), so the
 * writes of one form run one after another and version numbers can neither collide nor get lost.
 */
export class FormsRepository {
  private readonly db: Kysely<FormsTables>;
  // Single-form reads are the hot path: built and compiled once.
  private readonly latest;
  private readonly exact;

  constructor(data: DataAccess<FormsTables>, dialect: Dialect) {
    this.db = data.db;
    // The latest version of many forms, each of its own tenant, as one statement per turn of the event loop:
    // each request finds its head (the latest version number), then that version by primary key. One round
    // trip for a burst of concurrent reads on PostgreSQL (docs/benchmarks/forms.md).
    this.latest = batchedLookup<{ tenantId: string; formId: string }, StoredForm>(data, dialect, {
      name: 'latest',
      columns: { t: 'text', f: 'text' },
      record: ({ tenantId, formId }) => ({ t: tenantId, f: formId }),
      query: (records) => {
        const heads = dialect.joinByKey(records, 'form_heads', 'h', [
          ['tenant_id', 'r.t'],
          ['form_id', 'r.f'],
        ]);
        return dialect
          .joinByKey(heads, 'form_versions', 'v', [
            ['tenant_id', 'h.tenant_id'],
            ['form_id', 'h.form_id'],
            ['version', 'h.latest_version'],
          ])
          .select(['r.n', 'v.form_id', 'v.version', 'v.name', 'v.config', 'v.created_on', 'v.created_by']);
      },
    });
    this.exact = prepareQuery<StoredForm, [string, string, number]>(data, (p) =>
      forTenant(this.db, p(0))
        .selectFrom('form_versions')
        .select(FORM_COLUMNS)
        .where('form_id', '=', p(1))
        .where('version', '=', p(2)),
    );
  }

  /** The latest version of the form; reads arriving in the same turn of the event loop share one statement. */
  async findLatest(tenantId: string, formId: string): Promise<StoredForm | undefined> {
    return this.latest({ tenantId, formId });
  }

  async findVersion(tenantId: string, formId: string, version: number): Promise<StoredForm | undefined> {
    return (await this.exact(tenantId, formId, version))[0];
  }

  /** Every version of the form, oldest first. */
  async findHistory(tenantId: string, formId: string): Promise<StoredForm[]> {
    return forTenant(this.db, tenantId)
      .selectFrom('form_versions')
      .select(FORM_COLUMNS)
      .where('form_id', '=', formId)
      .orderBy('version', 'asc')
      .execute();
  }

  /** The latest version of every form of the tenant, by form id. */
  async listLatest(tenantId: string): Promise<StoredForm[]> {
    return this.db
      .selectFrom('form_heads as h')
      .innerJoin('form_versions as v', (j) =>
        j
          .onRef('v.tenant_id', '=', 'h.tenant_id')
          .onRef('v.form_id', '=', 'h.form_id')
          .onRef('v.version', '=', 'h.latest_version'),
      )
      .select(['v.form_id', 'v.version', 'v.name', 'v.config', 'v.created_on', 'v.created_by'])
      .where('h.tenant_id', '=', tenantId)
      .orderBy('h.form_id')
      .execute();
  }

  /** Adds the next version (highest ever issued + 1; 1 for a form that does not exist). */
  async addVersion(tenantId: string, formId: string, input: NewVersion): Promise<StoredForm> {
    return this.db.transaction().execute(async (trx) => {
      // Insert-or-increment in one statement: on PostgreSQL it takes the head's row lock until commit.
      const head = await trx
        .insertInto('form_heads')
        .values({ tenant_id: tenantId, form_id: formId, issued_version: 1, latest_version: 1 })
        .onConflict((oc) =>
          oc.columns(['tenant_id', 'form_id']).doUpdateSet({
            issued_version: sql<number>`form_heads.issued_version + 1`,
            latest_version: sql<number>`form_heads.issued_version + 1`,
          }),
        )
        .returning('issued_version')
        .executeTakeFirstOrThrow();
      const row: StoredForm = {
        form_id: formId,
        version: Number(head.issued_version),
        name: input.name,
        config: input.config(Number(head.issued_version)),
        created_on: input.createdOn,
        created_by: input.createdBy,
      };
      await trx
        .insertInto('form_versions')
        .values({ tenant_id: tenantId, ...row })
        .execute();
      return row;
    });
  }

  /** Deletes one version; the latest remaining one becomes the latest, and without any the form is gone. */
  async deleteVersion(tenantId: string, formId: string, version: number): Promise<DeleteVersionResult> {
    return this.db.transaction().execute(async (trx) => {
      if (!(await lockHead(trx, tenantId, formId))) return 'no-form';
      const gone = await forTenant(trx, tenantId)
        .deleteFrom('form_versions')
        .where('form_id', '=', formId)
        .where('version', '=', version)
        .returning('version')
        .executeTakeFirst();
      if (!gone) return 'no-version';
      const { latest } = await forTenant(trx, tenantId)
        .selectFrom('form_versions')
        .select((eb) => eb.fn.max('version').as('latest'))
        .where('form_id', '=', formId)
        .executeTakeFirstOrThrow();
      if (latest === null || latest === undefined) {
        await forTenant(trx, tenantId).deleteFrom('form_heads').where('form_id', '=', formId).execute();
      } else {
        await forTenant(trx, tenantId)
          .updateTable('form_heads')
          .set({ latest_version: Number(latest) })
          .where('form_id', '=', formId)
          .execute();
      }
      return { deleted: Number(gone.version) };
    });
  }

  /** Deletes the form with all its versions; answers the deleted versions (oldest first), or null. */
  async deleteForm(tenantId: string, formId: string): Promise<number[] | null> {
    return this.db.transaction().execute(async (trx) => {
      if (!(await lockHead(trx, tenantId, formId))) return null;
      const gone = await forTenant(trx, tenantId)
        .deleteFrom('form_versions')
        .where('form_id', '=', formId)
        .returning('version')
        .execute();
      await forTenant(trx, tenantId).deleteFrom('form_heads').where('form_id', '=', formId).execute();
      return gone.map((r) => Number(r.version)).sort((a, b) => a - b);
    });
  }
}

/** A no-op update that takes the head's row lock (portable stand-in for SELECT ... FOR UPDATE). */
async function lockHead(trx: Kysely<FormsTables>, tenantId: string, formId: string): Promise<boolean> {
  const locked = await forTenant(trx, tenantId)
    .updateTable('form_heads')
    .set({ issued_version: sql<number>`issued_version` })
    .where('form_id', '=', formId)
    .returning('issued_version')
    .executeTakeFirst();
  return locked !== undefined;
}
