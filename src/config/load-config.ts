import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { FormatRegistry } from '@sinclair/typebox';
import { parse as parseYaml } from 'yaml';
import { ConfigSchema, type AppConfig } from './config.schema.js';

/** A config problem worth a one-line message to the operator, never a stack trace. */
export class ConfigError extends Error {}

FormatRegistry.Has('date-time') ||
  FormatRegistry.Set('date-time', (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)));

function pointerToPath(pointer: string): string {
  let out = '';
  for (const part of pointer.split('/').slice(1)) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  return out || '(root)';
}

function describe(message: string): string {
  const m = message.replace(/^Expected /, 'expected ');
  return m.charAt(0).toLowerCase() + m.slice(1);
}

/** Validates raw config data, fills defaults and returns a frozen config. */
export function parseConfig(raw: unknown, source = 'config'): AppConfig {
  const data = raw ?? {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new ConfigError(`${source}: (root): expected object`);
  const withDefaults = Value.Default(ConfigSchema, Value.Clone(data));
  const first = Value.Errors(ConfigSchema, withDefaults).First();
  if (first) {
    throw new ConfigError(`${source}: ${pointerToPath(first.path)}: ${describe(first.message)}`);
  }
  const config = withDefaults as AppConfig;
  if (config.identity.provider === 'oidc' && !config.identity.oidc) {
    throw new ConfigError(`${source}: identity.oidc: required when identity.provider is oidc`);
  }
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
    throw new ConfigError(`${path}: not valid ${/\.json$/i.test(path) ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Reads the file named by SVC_CONFIG (if any) and applies the environment overrides of decisions.md section 0. */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const path = env.SVC_CONFIG;
  const raw = (path ? readConfigFile(path) : {}) as Record<string, any>;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(`${path}: (root): expected object`);
  }
  const merged = { ...raw, server: { ...(raw.server ?? {}) }, database: { ...(raw.database ?? {}) }, identity: { ...(raw.identity ?? {}) } };
  if (env.HOST) merged.server.host = env.HOST;
  if (env.PORT) {
    const port = Number(env.PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT: expected an integer from 0 to 65535`);
    merged.server.port = port;
  }
  if (env.LOG_LEVEL) merged.server.logLevel = env.LOG_LEVEL;
  if (env.SVC_DATA_DIR) merged.database.dataDir = env.SVC_DATA_DIR;
  if (env.DATABASE_URL) merged.database.url = env.DATABASE_URL;
  if (env.SVC_ADMIN_PASSWORD) merged.identity.bootstrapAdminPassword = env.SVC_ADMIN_PASSWORD;
  return parseConfig(merged, path ?? 'config');
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
