import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { FormatRegistry } from '@sinclair/typebox';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { parse as parseYaml } from 'yaml';
import { ConfigSchema, type AppConfig } from './config.schema.js';

/** A config problem worth a one-line message to the operator, never a stack trace. */
export class ConfigError extends Error {}

/**
 * Registers the string formats the config schema names (TypeBox's FormatRegistry is one registry for the process;
 * TypeBox knows no format of its own). Called by parseConfig and loadConfig before they validate, not at import:
 * importing this file changes nothing. Registering again keeps the first registration.
 */
export function registerConfigFormats(): void {
  if (!FormatRegistry.Has('date-time')) {
    FormatRegistry.Set(
      'date-time',
      (v) =>
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)),
    );
  }
}

function pointerToPath(pointer: string): string {
  let out = '';
  for (const part of pointer.split('/').slice(1)) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  return out || '(root)';
}

/** One problem of a config: where (a dotted path) and what. */
interface Problem {
  path: string;
  message: string;
}

function describe(error: ValueError): string {
  // A union of literals (logLevel, provider...) says which values it takes; TypeBox says only "Expected union value".
  const members = (error.schema as { anyOf?: { const?: unknown }[] }).anyOf;
  if (error.type === ValueErrorType.Union && members?.every((m) => m.const !== undefined)) {
    return `expected one of ${members.map((m) => String(m.const)).join(', ')}`;
  }
  const m = error.message.replace(/^Expected /, 'expected ');
  return m.charAt(0).toLowerCase() + m.slice(1);
}

/** The schemes createDatabase serves; anything else would silently have been the embedded SQLite. */
const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** The scheme of a URL only, never its credentials. */
function schemeOf(url: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:(\/\/)?/.exec(url)?.[0];
  return scheme ? `"${scheme}..."` : '(no scheme)';
}

/** Fills defaults into `data` (a copy) and answers the first problem, or the config. */
function check(data: unknown): { config: AppConfig; problem?: Problem } {
  const withDefaults = Value.Default(ConfigSchema, Value.Clone(data ?? {})) as AppConfig;
  const first = Value.Errors(ConfigSchema, withDefaults).First();
  if (first) return { config: withDefaults, problem: { path: pointerToPath(first.path), message: describe(first) } };
  const url = withDefaults.database.url;
  if (url && !POSTGRES_URL.test(url)) {
    const message = `unsupported database URL ${schemeOf(url)} (postgres:// or postgresql:// selects PostgreSQL; without a URL, the embedded SQLite runs)`;
    return { config: withDefaults, problem: { path: 'database.url', message } };
  }
  if (withDefaults.identity.provider === 'oidc' && !withDefaults.identity.oidc) {
    return {
      config: withDefaults,
      problem: { path: 'identity.oidc', message: 'required when identity.provider is oidc' },
    };
  }
  return { config: withDefaults };
}

/** Validates raw config data, fills defaults and returns a frozen config. */
export function parseConfig(raw: unknown, source = 'config'): AppConfig {
  registerConfigFormats();
  const data = raw ?? {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new ConfigError(`${source}: (root): expected object`);
  const { config, problem } = check(data);
  if (problem) throw new ConfigError(`${source}: ${problem.path}: ${problem.message}`);
  return deepFreeze(config);
}

export function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new ConfigError(
      `${path}: not valid ${/\.json$/i.test(path) ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`,
    );
  }
}

/** An environment variable the service reads; `path` is the config key it overrides (none: SVC_CONFIG itself). */
export interface EnvironmentVariable {
  name: string;
  path?: string;
  description: string;
  /** The value as the config key takes it; throws a ConfigError naming the variable when it cannot be one. */
  parse?(value: string): unknown;
}

/** Every environment variable the service reads (decisions.md section 0); docs/configuration.md is made from it. */
export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  {
    name: 'SVC_CONFIG',
    description:
      'The config file: JSON if its name ends in `.json`, YAML otherwise. Without it, the defaults and the variables below.',
  },
  { name: 'HOST', path: 'server.host', description: 'Listen address.' },
  {
    name: 'PORT',
    path: 'server.port',
    description: 'Listen port.',
    parse(value) {
      const port = Number(value);
      if (!/^\d+$/.test(value) || port > 65535) throw new ConfigError('PORT: expected an integer from 0 to 65535');
      return port;
    },
  },
  { name: 'LOG_LEVEL', path: 'server.logLevel', description: 'Log level.' },
  { name: 'LOG_FORMAT', path: 'server.logFormat', description: 'Log format: `auto`, `json` or `pretty`.' },
  { name: 'SVC_DATA_DIR', path: 'database.dataDir', description: 'Directory of the embedded SQLite database.' },
  {
    name: 'DATABASE_URL',
    path: 'database.url',
    description: '`postgres://user@host:5432/db` selects PostgreSQL (15 or later) instead of the embedded SQLite.',
  },
  {
    name: 'DATABASE_DIRECT_URL',
    path: 'database.directUrl',
    description: 'PostgreSQL behind a pooler: the URL that bypasses it, for what needs a session (LISTEN, migrations).',
  },
  {
    name: 'METRICS_TOKEN',
    path: 'metrics.token',
    description: 'The bearer token that may read `/metrics`.',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    path: 'tracing.otlpEndpoint',
    description: 'Turns tracing on: the OTLP/HTTP collector base URL (`http://collector:4318`).',
  },
  { name: 'OTEL_SERVICE_NAME', path: 'tracing.serviceName', description: 'The `service.name` of the spans.' },
  {
    name: 'SVC_ADMIN_PASSWORD',
    path: 'identity.bootstrapAdminPassword',
    description: 'Password of the bootstrap admin created on an empty database.',
  },
];

function setPath(target: Record<string, any>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    node[key] =
      node[key] !== null && typeof node[key] === 'object' && !Array.isArray(node[key]) ? { ...node[key] } : {};
    node = node[key];
  }
  node[keys[keys.length - 1]] = value;
}

/**
 * Reads the file named by SVC_CONFIG (if any), validates it on its own, then applies the environment overrides of
 * decisions.md section 0 and validates again. The file first: a bad value in it must stop the start even while a
 * variable happens to override it, or it would surface the day the variable goes away.
 */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  registerConfigFormats();
  const path = env.SVC_CONFIG;
  const source = path ?? 'config';
  const raw = path ? readConfigFile(path) : {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new ConfigError(`${source}: (root): expected object`);
  parseConfig(raw, source);
  const merged: Record<string, any> = { ...raw };
  const applied = new Map<string, string>();
  for (const variable of ENVIRONMENT_VARIABLES) {
    const value = env[variable.name];
    // Unset and empty alike leave the file's value (an empty PORT= in a unit file is no port 0).
    if (!variable.path || !value) continue;
    setPath(merged, variable.path, variable.parse ? variable.parse(value) : value);
    applied.set(variable.path, variable.name);
  }
  const { config, problem } = check(merged);
  if (problem) {
    const name = applied.get(problem.path);
    throw new ConfigError(name ? `${name}: ${problem.message}` : `${source}: ${problem.path}: ${problem.message}`);
  }
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
