// docs/configuration.md, made from the config schema's descriptions and the table of environment variables, so the
// reference cannot drift from what the service accepts: `npm run docs:config` writes it, and
// test/platform/config-reference.test.ts fails when the checked-in file differs from this function's answer.
import { parse as parseYaml } from 'yaml';
import { ConfigSchema } from './config.schema.js';
import { ConfigError, ENVIRONMENT_VARIABLES, loadConfig, parseConfig } from './load-config.js';

/** A JSON schema as TypeBox builds it, read generically. */
interface Node {
  type?: string;
  description?: string;
  default?: unknown;
  properties?: Record<string, Node>;
  required?: string[];
  items?: Node;
  anyOf?: Node[];
  const?: unknown;
  patternProperties?: Record<string, Node>;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}

interface Row {
  key: string;
  type: string;
  default: string;
  description: string;
}

const code = (text: string) => `\`${text}\``;

/** A value as it would be written in the YAML file. */
function yamlish(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(yamlish).join(', ')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}: ${yamlish(v)}`)
      .join(', ')}}`;
  return String(value);
}

/** The members of a union told apart by a literal `type` property, or undefined. */
function taggedMembers(node: Node): Array<{ tag: string; member: Node }> | undefined {
  const members = node.anyOf;
  if (!members?.every((m) => m.properties?.type?.const !== undefined)) return undefined;
  return members.map((member) => ({ tag: String(member.properties!.type.const), member }));
}

function range(node: Node): string {
  const low =
    node.exclusiveMinimum !== undefined
      ? `> ${node.exclusiveMinimum}`
      : node.minimum !== undefined
        ? `≥ ${node.minimum}`
        : '';
  const high = node.maximum !== undefined ? `≤ ${node.maximum}` : '';
  if (node.minimum !== undefined && high) return `${node.minimum} to ${node.maximum}`;
  return [low, high].filter(Boolean).join(', ');
}

function typeOf(node: Node): string {
  if (node.anyOf) {
    if (node.anyOf.every((m) => m.const !== undefined))
      return `one of ${node.anyOf.map((m) => code(String(m.const))).join(', ')}`;
    const tagged = taggedMembers(node);
    if (tagged) return `object by ${code('type')}: ${tagged.map((t) => code(t.tag)).join(', ')}`;
    return node.anyOf.map(typeOf).join(' or ');
  }
  switch (node.type) {
    case 'string': {
      const parts = [node.format ? `string (${node.format})` : 'string'];
      if (node.minLength !== undefined && node.maxLength !== undefined)
        parts.push(`${node.minLength}-${node.maxLength} characters`);
      else if (node.maxLength !== undefined) parts.push(`at most ${node.maxLength} characters`);
      else if (node.minLength !== undefined)
        parts.push(node.minLength === 1 ? 'not empty' : `at least ${node.minLength} characters`);
      if (node.pattern) parts.push(`matching ${code(node.pattern)}`);
      return parts.join(', ');
    }
    case 'integer':
    case 'number':
      return [node.type, range(node)].filter(Boolean).join(', ');
    case 'boolean':
    case 'null':
      return node.type;
    case 'array':
      if (node.items?.properties) return 'list of objects';
      {
        const [head, ...constraints] = typeOf(node.items ?? {}).split(', ');
        return `list of ${head}s${constraints.length ? ` (each ${constraints.join(', ')})` : ''}`;
      }
    case 'object':
      return node.properties ? 'object' : 'object (any JSON)';
    default:
      return 'any';
  }
}

/** The variables that set a key, for its description. */
function environmentOf(key: string): string {
  const names = ENVIRONMENT_VARIABLES.filter((v) => v.path === key).map((v) => code(v.name));
  return names.length ? ` Environment: ${names.join(', ')}.` : '';
}

function defaultOf(node: Node, required: boolean): string {
  if ('default' in node) {
    // A section's {} only makes its members' defaults apply: nothing to say about it.
    if (node.properties && yamlish(node.default) === '{}') return '';
    return code(yamlish(node.default));
  }
  return required ? 'required' : '—';
}

/** Rows for the members of an object, under `path`; `note` prefixes each description (a union member's tag). */
function memberRows(node: Node, path: string, out: Row[], note = ''): void {
  for (const [name, member] of Object.entries(node.properties ?? {})) {
    if (note && name === 'type') continue;
    keyRows(member, `${path}.${name}`, node.required?.includes(name) ?? false, out, note);
  }
}

function keyRows(node: Node, key: string, required: boolean, out: Row[], note = ''): void {
  let description = node.description ?? '';
  const tagged = taggedMembers(node);
  if (tagged) description += tagged.map((t) => ` ${code(`type: ${t.tag}`)}: ${t.member.description ?? ''}`).join('');
  out.push({
    key,
    type: typeOf(node),
    default: defaultOf(node, required),
    description: note + description + environmentOf(key),
  });
  if (node.properties) memberRows(node, key, out, note);
  if (node.type === 'array' && node.items?.properties) memberRows(node.items, `${key}[]`, out, note);
  for (const t of tagged ?? []) memberRows(t.member, key, out, `${note}(${code(`type: ${t.tag}`)}) `);
}

/** Every key of the config file: one row each, in the schema's order. */
export function configRows(): Row[] {
  const out: Row[] = [];
  const root = ConfigSchema as unknown as Node;
  for (const [name, node] of Object.entries(root.properties ?? {}))
    keyRows(node, name, root.required?.includes(name) ?? false, out);
  return out;
}

/** Keys (dotted, `[]` for list items) whose schema has no description: the reference would leave them unexplained. */
export function undescribedKeys(): string[] {
  return configRows()
    .filter(
      (r) =>
        !r.description
          .replace(/^(\(`type: [^`]+`\) )+/, '')
          .replace(/ Environment: .*$/, '')
          .trim(),
    )
    .map((r) => r.key);
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function table(rows: Row[]): string[] {
  return [
    '| key | type | default | meaning |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${code(r.key)} | ${cell(r.type)} | ${cell(r.default)} | ${cell(r.description)} |`),
  ];
}

/** The message a config problem stops the start with, as main.ts prints it. */
function failure(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return `config error: ${err.message}`;
    throw err;
  }
  throw new Error('the example config was accepted');
}

const EXAMPLE = `identity:
  sessionTtlSeconds: 1800
tenants:
  - name: default
    users:
      - loginName: alice
        password: "hashed on load"
        roles: [FORMS_ADMIN]
        organisations: [org1]
    apiKeys:
      - name: integration
        key: "k-long-random-value"
        roles: [NOTIFICATION_ADMIN]
`;

/** The text of docs/configuration.md. */
export function configReference(): string {
  const root = ConfigSchema as unknown as Node;
  const rows = configRows();
  const defaults = new Map(rows.map((r) => [r.key, r.default]));
  parseConfig(parseYaml(EXAMPLE), 'the example'); // it must stay valid
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated by `npm run docs:config` from src/config/config.schema.ts (the descriptions) and src/config/load-config.ts',
    '     (the environment variables); test/platform/config-reference.test.ts fails when this file differs. Edit those. -->',
    '',
    'The service reads its environment and, when `SVC_CONFIG` names one, a config file: JSON if its name ends in `.json`,',
    'YAML otherwise. The file is validated on its own first; then each variable below that is set and not empty replaces',
    'its key, and the result is validated again. Unknown keys are errors. A problem stops the start, and every CLI command,',
    'with one line naming the file and the key, or the variable, and exit code 2:',
    '',
    '```',
    failure(() =>
      parseConfig(
        {
          tenants: [
            { name: 'acme', users: [{ loginName: 'a' }, { loginName: 'b' }, { loginName: 'c', roles: 'ADMIN' }] },
          ],
        },
        'svc.yaml',
      ),
    ),
    failure(() => parseConfig({ server: { logLevel: 'verbose' } }, 'svc.yaml')),
    failure(() => loadConfig({ DATABASE_URL: 'mysql://app@db.example/app' })),
    '```',
    '',
    'The file provisions tenants, users and API keys at every start (an idempotent upsert: nothing is deleted) and sets',
    'everything else below. A small one:',
    '',
    '```yaml',
    ...EXAMPLE.trimEnd().split('\n'),
    '```',
    '',
    '## Environment variables',
    '',
    '| variable | key it sets | default | meaning |',
    '|---|---|---|---|',
    ...ENVIRONMENT_VARIABLES.map(
      (v) =>
        `| ${code(v.name)} | ${v.path ? code(v.path) : '—'} | ${v.path ? cell(defaults.get(v.path) ?? '—') : '—'} | ${cell(v.description)} |`,
    ),
    '',
    "The test suite's own variables are in CONTRIBUTING.md.",
    '',
    '## Config file',
    '',
    'Keys by section, in the order of the schema. `list[].key` is a key of each item of a list; "required" means',
    'required wherever its object or list item is given; — is no default (absent means unset).',
  ];
  for (const [name, node] of Object.entries(root.properties as Record<string, Node>)) {
    lines.push('', `### ${name}`, '');
    const own = rows.filter((r) => r.key === name || r.key.startsWith(`${name}.`) || r.key.startsWith(`${name}[]`));
    // A section's own description is its paragraph; a key that is a value itself (maintenance, tenants) keeps its row.
    if (node.properties) {
      if (node.description) lines.push(node.description, '');
      lines.push(...table(own.filter((r) => r.key !== name)));
    } else lines.push(...table(own));
  }
  return `${lines.join('\n')}\n`;
}
