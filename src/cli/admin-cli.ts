import { parseArgs } from 'node:util';
import type { AppConfig } from '../config/config.schema.js';
import { createDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrations.js';
import { MIGRATIONS } from '../module-list.js';
import { createIdentityAdmin } from '../modules/identity/index.js';
import { hashPassword } from '../platform/crypto/secrets.js';

export const CLI_USAGE = `usage: svc <command> [options]

  start                                   run the service (default)
  migrate                                 apply the schema to the configured database, naming each step
  user list [--tenant T]                  list users
  user set --tenant T --login L [--password P | --password-stdin] [--email E]
           [--first-name F] [--last-name L] [--organisations a,b] [--inactive-organisations a,b]
           [--roles a,b] [--rights a,b] [--active true|false]
                                          create a user or change the given fields
  user passwd --tenant T --login L (--password P | --password-stdin)
                                          set a password
  apikey create --tenant T --name N [--organisations a,b] [--roles a,b] [--rights a,b]
           [--expires-on 2027-01-01T00:00:00Z]
                                          create or replace an API key; the key is printed once
  apikey list [--tenant T]                list API keys (names and grants, never the keys)
  hash-password (--password P | --password-stdin)
                                          print a passwordHash for the config file
  version, --version                      print the version
  help, --help                            print this text

The database is the one the service uses: DATABASE_URL, SVC_DATA_DIR or the file named by SVC_CONFIG.`;

export class UsageError extends Error {}

const OPTIONS = {
  tenant: { type: 'string' },
  login: { type: 'string' },
  name: { type: 'string' },
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  email: { type: 'string' },
  'first-name': { type: 'string' },
  'last-name': { type: 'string' },
  organisations: { type: 'string' },
  'inactive-organisations': { type: 'string' },
  roles: { type: 'string' },
  rights: { type: 'string' },
  active: { type: 'string' },
  'expires-on': { type: 'string' },
} as const;

const list = (v: string | undefined) =>
  v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

function need(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`--${flag} is required`);
  return value;
}

/** Runs one admin command against the configured database; output goes to `out`. */
export async function runAdminCommand(argv: string[], config: AppConfig, out: (line: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [group, action] = positionals;
  const password = values['password-stdin'] ? await readStdin() : values.password;

  if (group === 'hash-password') {
    out(await hashPassword(need(password, 'password')));
    return;
  }

  const database = createDatabase({
    url: config.database.url,
    dataDir: config.database.dataDir,
    poolSize: 2,
    pooler: config.database.pooler,
    directUrl: config.database.directUrl,
    poolerPreparedStatements: config.database.poolerPreparedStatements,
    sqliteCacheMiB: config.database.sqliteCacheMiB,
    sqliteReaderThreads: 0,
    logError: (error, what) => process.stderr.write(`${what}: ${error.message}\n`),
  });
  try {
    for (const limitation of database.limitations)
      process.stderr.write(`database.pooler is transaction and database.directUrl is not set: ${limitation}\n`);
    const applied = await migrateToLatest(database.sessionDb ?? database.db, database.dialect, MIGRATIONS);
    const identity = createIdentityAdmin(database.data, database.dialect);
    const key = `${group ?? ''} ${action ?? ''}`.trim();
    switch (key) {
      case 'migrate':
        if (!applied.length) out(`schema of ${database.describe} is up to date: no migration to apply`);
        else {
          out(`applied ${applied.length} migration${applied.length === 1 ? '' : 's'} to ${database.describe}:`);
          for (const name of applied) out(`  ${name}`);
        }
        break;
      case 'user list':
        for (const u of await identity.listUsers(values.tenant)) {
          out(
            `${u.tenant}\t${u.loginName}\t${u.active ? 'active' : 'inactive'}\troles=${u.roles.join(',')}\trights=${u.rights.join(',')}\torganisations=${u.organisations.join(',')}`,
          );
        }
        break;
      case 'user set':
      case 'user passwd': {
        const tenant = need(values.tenant, 'tenant');
        const login = need(values.login, 'login');
        if (key === 'user passwd') need(password, 'password');
        if (values.active !== undefined && !['true', 'false'].includes(values.active))
          throw new UsageError('--active takes true or false');
        await identity.setUser(tenant, login, {
          password,
          email: values.email,
          firstName: values['first-name'],
          lastName: values['last-name'],
          organisations: list(values.organisations),
          inactiveOrganisations: list(values['inactive-organisations']),
          roles: list(values.roles),
          rights: list(values.rights),
          active: values.active === undefined ? undefined : values.active === 'true',
        });
        out(`user ${login} of tenant ${tenant} saved`);
        break;
      }
      case 'apikey create': {
        const tenant = need(values.tenant, 'tenant');
        const name = need(values.name, 'name');
        let expiresOn: number | null = null;
        if (values['expires-on']) {
          expiresOn = Date.parse(values['expires-on']);
          if (Number.isNaN(expiresOn)) throw new UsageError('--expires-on takes an ISO 8601 date-time');
        }
        const plain = await identity.setApiKey(tenant, name, {
          organisations: list(values.organisations),
          roles: list(values.roles),
          rights: list(values.rights),
          expiresOn,
        });
        out(`api key ${name} of tenant ${tenant} created; it is shown only now:`);
        out(plain!);
        break;
      }
      case 'apikey list':
        for (const k of await identity.listApiKeys(values.tenant)) {
          const exp = k.expiresOn === null ? 'never' : new Date(k.expiresOn).toISOString();
          out(
            `${k.tenant}\t${k.name}\texpires=${exp}\troles=${k.roles.join(',')}\trights=${k.rights.join(',')}\torganisations=${k.organisations.join(',')}`,
          );
        }
        break;
      default:
        throw new UsageError(`unknown command: ${key || '(none)'}`);
    }
  } finally {
    await database.destroy();
  }
}
