import type { FieldError } from '../../platform/errors/error-catalogue.js';

/** Size bounds of one form definition (the body size itself is bounded by server.bodyLimitBytes). */
export interface DefinitionLimits {
  /** Nesting of JSON arrays and objects anywhere in the body. */
  maxJsonDepth: number;
  /** Nesting of components inside components (through `components`, `columns` or `rows`). */
  maxComponentDepth: number;
  /** Components in the whole definition, nested ones included. */
  maxComponents: number;
}

export const DEFINITION_LIMITS: DefinitionLimits = { maxJsonDepth: 128, maxComponentDepth: 32, maxComponents: 10_000 };

export const MAX_TYPE_LENGTH = 256;
export const MAX_LABEL_LENGTH = 4096;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Depth of the deepest array or object in `value`, stopping as soon as `max` is exceeded.
 * Iterative, so a hostile body cannot exhaust the stack before it is refused.
 */
export function exceedsJsonDepth(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

interface PendingList {
  list: unknown;
  path: string;
  depth: number;
}

/**
 * Checks the component tree of a form's `config`: every entry of a `components` array is a component
 * (an object with a non-empty string `type`, and a string `label` when it has one), and `components`
 * is always an array. A component may hold `components`, and `columns` or `rows` arrays whose entries
 * (columns; rows of cells, or cells) may hold `components`. `columns` or `rows` of another kind (a
 * textarea's `rows: 3`) and all unknown properties are left alone. Answers the first problem found.
 */
export function findComponentError(
  components: unknown,
  limits: DefinitionLimits = DEFINITION_LIMITS,
  rootPath = 'body.config.components',
): FieldError | null {
  let count = 0;
  const pending: PendingList[] = [{ list: components, path: rootPath, depth: 1 }];
  // Columns and table cells are containers, not components: only the components they hold are checked.
  const visitContainer = (container: unknown, path: string, depth: number) => {
    if (isPlainObject(container) && container.components !== undefined) {
      pending.push({ list: container.components, path: `${path}.components`, depth });
    }
  };
  while (pending.length) {
    const { list, path, depth } = pending.pop()!;
    if (!Array.isArray(list)) return { path, message: 'must be an array' };
    if (depth > limits.maxComponentDepth)
      return { path, message: `components may be nested at most ${limits.maxComponentDepth} levels deep` };
    for (let i = 0; i < list.length; i++) {
      const at = `${path}[${i}]`;
      const c = list[i];
      if (++count > limits.maxComponents)
        return { path: at, message: `a form may hold at most ${limits.maxComponents} components` };
      if (!isPlainObject(c)) return { path: at, message: 'a component must be an object' };
      if (typeof c.type !== 'string' || c.type.length === 0 || c.type.length > MAX_TYPE_LENGTH) {
        return { path: `${at}.type`, message: `must be a string of 1 to ${MAX_TYPE_LENGTH} characters` };
      }
      if (c.label !== undefined && (typeof c.label !== 'string' || c.label.length > MAX_LABEL_LENGTH)) {
        return { path: `${at}.label`, message: `must be a string of at most ${MAX_LABEL_LENGTH} characters` };
      }
      if (c.components !== undefined) pending.push({ list: c.components, path: `${at}.components`, depth: depth + 1 });
      if (Array.isArray(c.columns))
        c.columns.forEach((col, j) => visitContainer(col, `${at}.columns[${j}]`, depth + 1));
      if (Array.isArray(c.rows)) {
        c.rows.forEach((row, j) => {
          if (Array.isArray(row)) row.forEach((cell, k) => visitContainer(cell, `${at}.rows[${j}][${k}]`, depth + 1));
          else visitContainer(row, `${at}.rows[${j}]`, depth + 1);
        });
      }
    }
  }
  return null;
}

/** A form's config as written by a client: the route schema has checked the top level. */
export interface ConfigInput {
  metaData?: Record<string, unknown>;
  configuration?: Record<string, unknown>;
  components: unknown[];
  [key: string]: unknown;
}

/**
 * The `config` entry as stored and returned: metaData carries the true id and version (whatever the
 * client wrote there), configuration defaults to {}, every other property is kept as written.
 */
export function storedConfigJson(config: ConfigInput, formId: string, version: number): string {
  const { metaData, configuration, components, ...rest } = config;
  const { id: _id, version: _version, ...otherMeta } = metaData ?? {};
  return JSON.stringify({
    metaData: { id: formId, version, ...otherMeta },
    configuration: configuration ?? {},
    components,
    ...rest,
  });
}

/** `{version}` path text -> a version number, or null when it is not a positive 32-bit integer. */
export function parseVersion(text: string): number | null {
  const digits = text.replace(/^0+(?=[0-9])/, '');
  if (!/^[0-9]{1,10}$/.test(digits)) return null;
  const n = Number(digits);
  return n >= 1 && n <= 2_147_483_647 ? n : null;
}
