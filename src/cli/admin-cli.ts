import { parseArgs } from 'node:util';
import type { AppConfig } from '../config/config.schema.js';
import { createDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrations.js';
import { MIGRATIONS } from '../module-list.js';
import { createIdentityAdmin } from '../modules/identity/index.js';
import { hashPassword } from '../platform/crypto/secrets.js';
import { backupDatabase } from './backup.js';
import type { FastifyBaseLogger } from 'fastify';
import { createChangeFeed } from '../platform/events/index.js';
import { AppError } from '../platform/errors/app-error.js';

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
  backup --to FILE                        copy the database, also while the service runs: SQLite's online
                                          backup, checked; PostgreSQL: pg_dump --format=custom
  apikey revoke --tenant T --name N       delete an API key; it stops working at once on running instances
  user delete --tenant T --login L        delete a user and end its sessions (not brought back by the config
                                          file while its entry there is unchanged)
  session end --tenant T --login L [--id ID]
                                          end a user's sessions (one, with the id the HTTP session list answers)
  hash-password (--password P | --password-stdin)
                                          print a passwordHash for the config file
  version, --version                      print the version
  help, --help                            print this text

The database is the one the service uses: DATABASE_URL, SVC_DATA_DIR or the file named by SVC_CONFIG.`;

export class UsageError extends Error {}

/** A command that could not be done (no such user, key or session): its message, exit code 1. */
export class CommandError extends Error {}

/** The change feed's logger in the CLI: warnings and errors to stderr, nothing else. */
const stderrLog: FastifyBaseLogger = {
  level: 'warn',
  fatal: (...a: unknown[]) => void process.stderr.write(`${String(a.at(-1))}\n`),
  error: (...a: unknown[]) => void process.stderr.write(`${String(a.at(-1))}\n`),
  warn: (...a: unknown[]) => void process.stderr.write(`${String(a.at(-1))}\n`),
  info: () => undefined,
  debug: () => undefined,
  trace: () => undefined,
  silent: () => undefined,
  child: () => stderrLog,
} as unknown as FastifyBaseLogger;

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
  to: { type: 'string' },
  id: { type: 'string' },
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

  // Before the database is opened as the other commands open it: no process lock, no migration, only reads.
  if (group === 'backup') {
    await backupDatabase(config, need(values.to, 'to'), out);
    return;
  }

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
    preparedStatementsPerConnection: config.database.preparedStatementsPerConnection,
    sqliteCacheMiB: config.database.sqliteCacheMiB,
    sqliteReaderThreads: 0,
    logError: (error, what) => process.stderr.write(`${what}: ${error.message}\n`),
  });
  try {
    for (const limitation of database.limitations)
      process.stderr.write(`database.pooler is transaction and database.directUrl is not set: ${limitation}\n`);
    const applied = await migrateToLatest(database.sessionDb ?? database.db, database.dialect, MIGRATIONS);
    // Endings and revocations travel on the change feed, so that running instances (PostgreSQL) drop what they cached.
    const feed = createChangeFeed({
      db: database.db,
      shared: !database.traits.singleInstance,
      connectDedicated: database.connectDedicated,
      schema: await database.dialect.currentSchema(database.db),
      retentionHours: config.events.retentionHours,
      log: stderrLog,
    });
    const identity = createIdentityAdmin(database.data, database.dialect, { feed, log: stderrLog });
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
      case 'user delete': {
        const tenant = need(values.tenant, 'tenant');
        const login = need(values.login, 'login');
        const { sessionsEnded } = await identity.deleteUser(tenant, login);
        out(`user ${login} of tenant ${tenant} deleted; ${sessionsEnded} session(s) ended`);
        break;
      }
      case 'apikey revoke': {
        const tenant = need(values.tenant, 'tenant');
        const name = need(values.name, 'name');
        await identity.revokeApiKey(tenant, name);
        out(`api key ${name} of tenant ${tenant} revoked`);
        break;
      }
      case 'session end': {
        const tenant = need(values.tenant, 'tenant');
        const login = need(values.login, 'login');
        const { sessionsEnded } = await identity.endSessions(tenant, login, values.id);
        out(`${sessionsEnded} session(s) of user ${login} of tenant ${tenant} ended`);
        break;
      }
      default:
        throw new UsageError(`unknown command: ${key || '(none)'}`);
    }
  } catch (err) {
    // A refusal of the administration (no such tenant, user, key or session) is the operator's to read, not a crash.
    if (err instanceof AppError && err.statusCode < 500) throw new CommandError(err.message);
    throw err;
  } finally {
    await database.destroy();
  }
}
