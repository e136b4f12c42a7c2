import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { checkArchitecture, MODULE_LIST, readSources } from '../helpers/architecture.js';

/**
 * Module-level state that is allowed, each with its reason. Keep this list short: state that another instance
 * or another tenant could need belongs in the database, and per-app state belongs to objects the composition
 * root builds.
 */
const ALLOWED_MUTABLE_STATE = new Set([
  // A memo of immutable Intl.DateTimeFormat objects by time-zone name: the same answer for every caller and app.
  'src/platform/query/timezone.ts:formatters',
  // Memos of immutable Kysely builders of trusted SQL names (sql.ref, sql.table): the same answer for every caller.
  'src/platform/query/sql-parts.ts:refs',
  'src/platform/query/sql-parts.ts:tables',
]);

/**
 * Files outside src/modules and src/engine that may import a module's face besides the module list, each with its
 * reason. Everything else reaches modules only through what the module list built (app.ts registers and starts it).
 */
const ALLOWED_FACE_IMPORTS = new Set([
  // The admin CLI administers users and keys on the database without building the HTTP app (createIdentityAdmin).
  'src/cli/admin-cli.ts',
]);

describe('house rules (ARCHITECTURE.md), checked over the imports of src/', () => {
  it('src/ keeps them: module faces only, one module list, platform below modules, no cycles, no module-level state', () => {
    const files = readSources(join(import.meta.dirname, '../../src'));
    expect(files.size).toBeGreaterThan(50);
    expect(files.has(MODULE_LIST)).toBe(true);
    expect(checkArchitecture(files, ALLOWED_MUTABLE_STATE, ALLOWED_FACE_IMPORTS)).toEqual([]);
  });

  it('every allow-listed binding still exists and is still state (the list cannot go stale)', () => {
    const files = readSources(join(import.meta.dirname, '../../src'));
    const found = checkArchitecture(files).filter((v) => v.rule === 'mutable-state');
    const names = new Set(found.map((v) => `${v.file}:${/'(.+)'/.exec(v.detail)![1]}`));
    for (const allowed of ALLOWED_MUTABLE_STATE) expect(names).toContain(allowed);
  });

  const fixture = (entries: Record<string, string>) => new Map(Object.entries(entries));

  it('finds a module reaching into another module', () => {
    const v = checkArchitecture(
      fixture({
        'src/modules/a/index.ts': `export const a = 1;`,
        'src/modules/a/a.service.ts': `export class A {}`,
        'src/modules/b/index.ts': `import { a } from '../a/index.js';\nimport type { A } from '../a/a.service.js';`,
        'src/engine/rest/index.ts': `import { A } from '../../modules/a/a.service.js';`,
        'src/app.ts': `import { A } from './modules/a/a.service.js';`,
      }),
    );
    expect(v.map((x) => [x.rule, x.file])).toEqual([
      ['module-boundary', 'src/modules/b/index.ts'],
      ['module-boundary', 'src/engine/rest/index.ts'],
      ['module-boundary', 'src/app.ts'],
    ]);
  });

  it('finds a module built or wired outside the module list', () => {
    const v = checkArchitecture(
      fixture({
        'src/modules/a/index.ts': `export const aModule = 1;`,
        'src/engine/e/index.ts': `import { aModule } from '../../modules/a/index.js';`,
        'src/module-list.ts': `import { aModule } from './modules/a/index.js';`,
        'src/app.ts': `import { aModule } from './modules/a/index.js';\nimport { x } from './module-list.js';`,
        'src/cli/tool.ts': `import { aModule } from '../modules/a/index.js';`,
        'src/cli/admin.ts': `import { aModule } from '../modules/a/index.js';`,
      }),
      new Set(),
      new Set(['src/cli/admin.ts']),
    );
    expect(v.map((x) => [x.rule, x.file])).toEqual([
      ['module-list', 'src/app.ts'],
      ['module-list', 'src/cli/tool.ts'],
    ]);
  });

  it('every allow-listed face import is still one (the list cannot go stale)', () => {
    const files = readSources(join(import.meta.dirname, '../../src'));
    const found = new Set(
      checkArchitecture(files, ALLOWED_MUTABLE_STATE)
        .filter((v) => v.rule === 'module-list')
        .map((v) => v.file),
    );
    for (const allowed of ALLOWED_FACE_IMPORTS) expect(found).toContain(allowed);
  });

  it('finds platform code importing a module', () => {
    const v = checkArchitecture(
      fixture({
        'src/modules/a/index.ts': `export const a = 1;`,
        'src/platform/x/x.ts': `export { a } from '../../modules/a/index.js';`,
        'src/platform/x/y.ts': `import { x } from './x.js';`,
      }),
    );
    expect(v).toEqual([
      { rule: 'platform-layer', file: 'src/platform/x/x.ts', detail: 'platform code imports src/modules/a/index.ts' },
    ]);
  });

  it('finds platform folders importing against their direction (query never imports db)', () => {
    const v = checkArchitecture(
      fixture({
        'src/platform/db/dialect.ts': `import type { Q } from '../query/q.js';\nexport type D = Q;`,
        'src/platform/query/q.ts': `export type Q = string;`,
        'src/platform/query/compile.ts': `import type { D } from '../db/dialect.js';\nexport type C = D;`,
      }),
    );
    expect(v).toEqual([
      {
        rule: 'platform-direction',
        file: 'src/platform/query/compile.ts',
        detail: 'imports src/platform/db/dialect.ts; src/platform/query/ never imports src/platform/db/',
      },
    ]);
  });

  it('finds import cycles, type-only ones included', () => {
    const v = checkArchitecture(
      fixture({
        'src/platform/db/d.ts': `import type { T } from '../query/t.js';\nexport type D = T;`,
        'src/platform/query/t.ts': `import type { D } from '../db/d.js';\nexport type T = string;`,
        'src/platform/query/u.ts': `import type { T } from './t.js';`,
      }),
    );
    expect(v.filter((x) => x.rule === 'import-cycle')).toEqual([
      {
        rule: 'import-cycle',
        file: 'src/platform/db/d.ts',
        detail: 'import cycle: src/platform/db/d.ts -> src/platform/query/t.ts',
      },
    ]);
  });

  it('finds module-level state that is changed, and leaves constant tables alone', () => {
    const v = checkArchitecture(
      fixture({
        'src/platform/s.ts': [
          `const registry = new WeakMap<object, number>();`,
          `export function register(o: object) { registry.set(o, 1); }`,
          `let counter = 0;`,
          `export const next = () => ++counter;`,
          `let flag = false;`,
          `export function on() { flag = true; }`,
          `const KINDS = new Set(['a', 'b']);`,
          `export const isKind = (k: string) => KINDS.has(k);`,
          `const list: string[] = [];`,
          `export function local() { const list: string[] = []; list.push('x'); return list; }`,
          `const cache: Record<string, number> = {};`,
          `export function put(k: string) { cache[k] = 1; }`,
        ].join('\n'),
      }),
    );
    expect(v.map((x) => x.detail).sort()).toEqual(
      [
        "module-level binding 'cache' is changed after it is made",
        "module-level binding 'counter' is changed after it is made",
        "module-level binding 'flag' is changed after it is made",
        "module-level binding 'registry' is changed after it is made",
      ].sort(),
    );
  });
});

describe('no module-level change of a library global', () => {
  const fixture = (entries: Record<string, string>) => new Map(Object.entries(entries));

  it('finds a package object changed at import, and leaves calls inside functions alone', () => {
    const v = checkArchitecture(
      fixture({
        'src/config/c.ts': [
          `import { FormatRegistry, Type } from '@sinclair/typebox';`,
          `import pg from 'pg';`,
          `import { local } from './local.js';`,
          `FormatRegistry.Has('x') || FormatRegistry.Set('x', () => true);`,
          `pg.types.setTypeParser(20, Number);`,
          `pg.defaults.poolSize = 3;`,
          `local.set('fine', 1);`,
          `export const Schema = Type.Object({});`,
          `export function registerFormats() { FormatRegistry.Set('y', () => true); }`,
        ].join('\n'),
        'src/config/local.ts': `export const local = new Map<string, number>();`,
      }),
    );
    expect(v.filter((x) => x.rule === 'library-global').map((x) => x.detail)).toEqual([
      'changes FormatRegistry.Set of a package at import; do it in a function called at start',
      'changes pg.types.setTypeParser of a package at import; do it in a function called at start',
      'changes pg.defaults.poolSize of a package at import; do it in a function called at start',
    ]);
  });
});
