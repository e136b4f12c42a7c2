// Issue 5 benchmark: read of a form's latest version from a repository of 10,000 forms with 10 versions
// each, against a bare Fastify route answering the same JSON, in the same run.
// Usage: npm run build && node bench/forms.mjs
// Env: ENGINES=sqlite,postgres (default sqlite); PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres)
//      names the server on which a throw-away database is created and dropped; FORMS, VERSIONS, ROUNDS, DURATION, CONNECTIONS;
//      BASELINE=process runs the bare route in its own process like the service (default: in this process, beside
//      autocannon, as bench/lib.mjs does, which starves the baseline of CPU and flatters the ratio).
// A third scenario, the API-key principal endpoint, shows the floor that credential resolution alone sets.
// Seeding: direct multi-row INSERTs through Kysely in one transaction, on the service's own database, between a
// first start of the service (which migrates and provisions the tenant and key) and the measured start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { compare, printTable, startBaseline, startService } from './lib.mjs';
import { createDatabase } from '../dist/platform/db/database.js';
import { storedConfigJson } from '../dist/modules/forms/form-definition.js';

const FORMS = Number(process.env.FORMS ?? 10_000);
const VERSIONS = Number(process.env.VERSIONS ?? 10);
const rounds = Number(process.env.ROUNDS ?? 3);
const duration = Number(process.env.DURATION ?? 5);
const connections = Number(process.env.CONNECTIONS ?? 50);
const engines = (process.env.ENGINES ?? 'sqlite').split(',');
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const API_KEY = 'k-bench-forms-reader-0001';
const PORT = 18191;

const work = mkdtempSync(join(tmpdir(), 'svc-bench-forms-'));
const configFile = join(work, 'config.json');
// A reader without any forms role or right: single-form reads are open to every authenticated caller.
writeFileSync(
  configFile,
  JSON.stringify({ tenants: [{ name: 'bench', apiKeys: [{ name: 'reader', key: API_KEY, roles: ['USER'] }] }] }),
);

const formId = (i) => `form-${String(i).padStart(5, '0')}`;

/** A realistic small definition: eight components, one of them a panel holding two more. */
function config(i, version) {
  return {
    configuration: { display: 'form', submitLabel: `Send ${i}` },
    components: [
      { type: 'textfield', label: 'First name', key: 'firstName', validate: { required: true, maxLength: 100 } },
      { type: 'textfield', label: 'Last name', key: 'lastName', validate: { required: true } },
      { type: 'email', label: 'E-mail', key: 'email' },
      { type: 'number', label: 'Age', key: 'age', validate: { min: 0, max: 150 } },
      {
        type: 'select',
        label: 'Country',
        key: 'country',
        data: {
          values: [
            { label: 'Austria', value: 'at' },
            { label: 'Germany', value: 'de' },
          ],
        },
      },
      {
        type: 'panel',
        label: 'Address',
        key: 'address',
        components: [
          { type: 'textfield', label: 'Street', key: 'street' },
          { type: 'textfield', label: 'City', key: 'city' },
        ],
      },
      { type: 'textarea', label: `Notes (v${version})`, key: 'notes', rows: 3 },
      { type: 'button', label: 'Submit', key: 'submit', action: 'submit' },
    ],
  };
}

async function seed(env) {
  const database = createDatabase({ url: env.DATABASE_URL, dataDir: env.SVC_DATA_DIR ?? '' });
  const { db } = database;
  const started = Date.now();
  try {
    const tenant = await db.selectFrom('tenants').select('id').where('name', '=', 'bench').executeTakeFirstOrThrow();
    await db.transaction().execute(async (trx) => {
      const BATCH = 500;
      for (let from = 0; from < FORMS; from += BATCH) {
        const heads = [];
        const versions = [];
        for (let i = from; i < Math.min(from + BATCH, FORMS); i++) {
          heads.push({ tenant_id: tenant.id, form_id: formId(i), issued_version: VERSIONS, latest_version: VERSIONS });
          for (let v = 1; v <= VERSIONS; v++) {
            versions.push({
              tenant_id: tenant.id,
              form_id: formId(i),
              version: v,
              name: `Form ${i}`,
              config: storedConfigJson(config(i, v), formId(i), v),
              created_on: started,
              created_by: 'bench-seed',
            });
          }
        }
        await trx.insertInto('form_heads').values(heads).execute();
        for (let k = 0; k < versions.length; k += BATCH)
          await trx
            .insertInto('form_versions')
            .values(versions.slice(k, k + BATCH))
            .execute();
      }
    });
  } finally {
    await database.destroy();
  }
  return Date.now() - started;
}

async function runEngine(engine) {
  const env = {};
  let dropDatabase = async () => {};
  if (engine === 'postgres') {
    const dbName = `svc_bench_forms_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${dbName}`;
    env.DATABASE_URL = url.toString();
    dropDatabase = async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    };
  } else {
    env.SVC_DATA_DIR = join(work, 'sqlite');
  }
  try {
    // First start: migrations and provisioning of the tenant and the key; then seed with the service stopped.
    await (await startService({ port: PORT, configFile, env })).close();
    const seedMs = await seed(env);
    console.log(
      `${engine}: seeded ${FORMS} forms x ${VERSIONS} versions (${FORMS * VERSIONS} rows) in ${(seedMs / 1000).toFixed(1)} s`,
    );

    const service = await startService({ port: PORT, configFile, env });
    try {
      const headers = { 'x-apikey': API_KEY };
      const sample = await (
        await fetch(`${service.url}/cxf/svc-forms/forms/${formId(4242 % FORMS)}`, { headers })
      ).json();
      if (sample.version !== VERSIONS || sample.config?.metaData?.version !== VERSIONS)
        throw new Error(`unexpected form: ${JSON.stringify(sample).slice(0, 300)}`);
      const baseline = await startBaseline(sample, 0, { inProcess: process.env.BASELINE !== 'process' });
      // Every request reads a random form, so the load is not one hot row.
      const randomRead = (prefix) => [
        {
          method: 'GET',
          setupRequest: (req) => ({ ...req, path: `${prefix}${formId(Math.floor(Math.random() * FORMS))}` }),
        },
      ];
      try {
        const results = await compare(
          {
            'bare route (same form JSON)': { url: `${baseline.url}/x`, requests: randomRead('/bare/') },
            'GET /cxf/svc-forms/forms/{formId} (X-APIKey)': {
              url: service.url,
              headers,
              requests: randomRead('/cxf/svc-forms/forms/'),
            },
            // The platform's floor for comparison: credential resolution alone, no forms query.
            'GET /cxf/svc-core/authentication/principal (X-APIKey)': {
              url: `${service.url}/cxf/svc-core/authentication/principal`,
              headers,
            },
          },
          { rounds, duration, connections },
        );
        printTable(
          `Latest-version read, ${FORMS} forms x ${VERSIONS} versions, ${engine === 'postgres' ? 'PostgreSQL' : 'SQLite'} (${connections} connections, ${rounds} rounds x ${duration}s, ${JSON.stringify(sample).length} B body, baseline ${process.env.BASELINE === 'process' ? 'in its own process' : 'in the load generator process'})`,
          results,
          'bare route (same form JSON)',
        );
      } finally {
        await baseline.close();
      }
    } finally {
      await service.close();
    }
  } finally {
    await dropDatabase();
  }
}

try {
  for (const engine of engines) await runEngine(engine);
} finally {
  rmSync(work, { recursive: true, force: true });
}
