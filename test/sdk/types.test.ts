// The SDK's types reject wrong calls: sdk/test-d/types.fixture.ts marks each wrong call with `@ts-expect-error`.
// This compiles a copy without the directives and checks that the compiler fails on exactly the marked lines: a wrong
// call that compiles, or a correct one that does not, fails the test.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURE = join(ROOT, 'sdk/test-d/types.fixture.ts');
const dir = mkdtempSync(join(tmpdir(), 'sdk-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the SDK type test (sdk/test-d/types.fixture.ts)', () => {
  it('fails to compile on every marked line and only there', () => {
    const lines = readFileSync(FIXTURE, 'utf8').split('\n');
    const marked: number[] = [];
    const stripped = lines.map((line, i) => {
      if (line.trim().startsWith('// @ts-expect-error')) {
        marked.push(i + 2); // the line after the directive, 1-based
        return '';
      }
      return line.replace("'../src/index.js'", JSON.stringify(join(ROOT, 'sdk/src/index.js')));
    });
    expect(marked.length).toBeGreaterThanOrEqual(15);
    writeFileSync(join(dir, 'types.fixture.ts'), stripped.join('\n'));
    const sdkOptions = JSON.parse(readFileSync(join(ROOT, 'sdk/tsconfig.json'), 'utf8')).compilerOptions;
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { ...sdkOptions, noEmit: true, declaration: false, declarationMap: false, rootDir: '/' },
        files: ['types.fixture.ts'],
      }),
    );
    const tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
    const run = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], {
      encoding: 'utf8',
    });
    const failing = new Set(
      [...run.stdout.matchAll(/types\.fixture\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1])),
    );
    // Errors only in the fixture (nothing wrong in the SDK's own sources under these options).
    expect(run.stdout.split('\n').filter((l) => l.includes('error TS') && !l.includes('types.fixture.ts'))).toEqual([]);
    expect([...failing].sort((a, b) => a - b)).toEqual(marked);
  }, 120_000);
});
