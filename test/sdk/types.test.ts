// The SDK's types reject wrong calls: the fixtures in sdk/test-d/ mark each wrong call with `@ts-expect-error`. This
// compiles a copy without the directives and checks that the compiler fails on exactly the marked lines: a wrong call
// that compiles, or a correct one that does not, fails the test. dm.fixture.ts (parameter and answer types of data
// management calls) runs once the document names those schemas (the openapi branch's document does).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const SCHEMA = readFileSync(join(ROOT, 'sdk/src/schema.ts'), 'utf8');
const DM_TYPED = SCHEMA.includes('"DataManagement.Asset.query.Parameters"');
const dir = mkdtempSync(join(tmpdir(), 'sdk-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Compiles the fixture without its directives; answers the marked lines and the lines that failed. */
function compileWithoutDirectives(name: string, minimum: number) {
  const lines = readFileSync(join(ROOT, 'sdk/test-d', name), 'utf8').split('\n');
  const marked: number[] = [];
  const stripped = lines.map((line, i) => {
    if (line.trim().startsWith('// @ts-expect-error')) {
      marked.push(i + 2); // the line after the directive, 1-based
      return '';
    }
    return line.replace("'../src/index.js'", JSON.stringify(join(ROOT, 'sdk/src/index.js')));
  });
  expect(marked.length).toBeGreaterThanOrEqual(minimum);
  writeFileSync(join(dir, name), stripped.join('\n'));
  const sdkOptions = JSON.parse(readFileSync(join(ROOT, 'sdk/tsconfig.json'), 'utf8')).compilerOptions;
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...sdkOptions, noEmit: true, declaration: false, declarationMap: false, rootDir: '/' },
      files: [name],
    }),
  );
  const tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], {
    encoding: 'utf8',
  });
  const failing = new Set([...run.stdout.matchAll(/\.fixture\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1])));
  // Errors only in the fixture (nothing wrong in the SDK's own sources under these options).
  expect(run.stdout.split('\n').filter((l) => l.includes('error TS') && !l.includes(name))).toEqual([]);
  expect([...failing].sort((a, b) => a - b)).toEqual(marked);
}

describe('the SDK type tests (sdk/test-d/)', () => {
  it('types.fixture.ts: fails to compile on every marked line and only there', () => {
    compileWithoutDirectives('types.fixture.ts', 15);
  }, 300_000);

  // Switches on by itself once sdk/src/schema.ts is generated from a document with the DataManagement schemas.
  it.skipIf(!DM_TYPED)(
    'dm.fixture.ts: parameter and answer types of data management calls',
    () => {
      compileWithoutDirectives('dm.fixture.ts', 4);
    },
    120_000,
  );
});
