// The build scripts of package.json as a developer runs them, on a project of two files (with this repository's
// node_modules): `npm run cli` / `npm start` compile only when a source changed, `npm run dev` restarts on a change.
import { spawn, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
  readFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../..');
const BUILD = join(REPO, 'scripts/build-if-changed.mjs');
const DEV = join(REPO, 'scripts/dev.mjs');
// Generous: a compile of two files takes a second or two, much more on a machine busy with other work.
const LIMIT_MS = 240_000;

function makeProject(): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-scripts-'));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'scripts-fixture', private: true, type: 'module' }));
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        outDir: 'dist',
        rootDir: 'src',
        types: ['node'],
      },
    }),
  );
  writeFileSync(
    join(root, 'tsconfig.build.json'),
    JSON.stringify({ extends: './tsconfig.json', include: ['src/**/*.ts'] }),
  );
  mkdirSync(join(root, 'src'));
  writeFileSync(
    join(root, 'src/main.ts'),
    "import { VALUE } from './value.js';\nconsole.log(`ready ${VALUE}`);\nsetInterval(() => undefined, 60_000);\nprocess.on('SIGTERM', () => process.exit(0));\n",
  );
  setValue(root, 1);
  return root;
}

const setValue = (root: string, value: number | string) =>
  writeFileSync(join(root, 'src/value.ts'), `export const VALUE: number = ${value};\n`);

function build(root: string) {
  const r = spawnSync(process.execPath, [BUILD, root], { encoding: 'utf8' });
  return { code: r.status, compiled: r.stderr.includes('build: sources changed'), output: r.stdout + r.stderr };
}

const projects: string[] = [];
afterAll(() => {
  for (const p of projects) rmSync(p, { recursive: true, force: true });
});

describe('scripts/build-if-changed.mjs (precli, prestart)', () => {
  it(
    'compiles when a source was changed, added or removed, and not otherwise',
    () => {
      const root = makeProject();
      projects.push(root);
      expect(build(root)).toMatchObject({ code: 0, compiled: true });
      const main = statSync(join(root, 'dist/main.js')).mtimeMs;
      expect(build(root)).toMatchObject({ code: 0, compiled: false });
      expect(statSync(join(root, 'dist/main.js')).mtimeMs).toBe(main);

      setValue(root, 2);
      expect(build(root)).toMatchObject({ code: 0, compiled: true });
      expect(readFileSync(join(root, 'dist/value.js'), 'utf8')).toContain('VALUE = 2');
      expect(build(root)).toMatchObject({ compiled: false });

      writeFileSync(join(root, 'src/extra.ts'), 'export const EXTRA = 1;\n');
      expect(build(root)).toMatchObject({ code: 0, compiled: true });
      unlinkSync(join(root, 'src/extra.ts'));
      expect(build(root)).toMatchObject({ code: 0, compiled: true });

      // A failed compile leaves the stamp: the next call compiles again instead of running stale code.
      setValue(root, "'not a number'");
      const failed = build(root);
      expect(failed.code).not.toBe(0);
      expect(failed.output).toContain('error TS2322');
      expect(build(root)).toMatchObject({ compiled: true });
      setValue(root, 3);
      expect(build(root)).toMatchObject({ code: 0, compiled: true });

      rmSync(join(root, 'dist'), { recursive: true });
      expect(build(root)).toMatchObject({ code: 0, compiled: true });
    },
    LIMIT_MS,
  );
});

describe('scripts/dev.mjs (npm run dev)', () => {
  it(
    'starts the service after the first compile and restarts it when a source changes',
    async () => {
      const root = makeProject();
      projects.push(root);
      const dev = spawn(process.execPath, [DEV, root], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      dev.stdout.on('data', (d) => (out += d));
      dev.stderr.on('data', (d) => (out += d));
      const exited = new Promise<number | null>((resolve) => dev.once('exit', (code) => resolve(code)));
      const waitFor = async (text: string, times = 1) => {
        const deadline = Date.now() + LIMIT_MS / 3;
        while (out.split(text).length - 1 < times) {
          if (dev.exitCode !== null) throw new Error(`dev exited: ${out}`);
          if (Date.now() > deadline) throw new Error(`no "${text}" in: ${out}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      try {
        await waitFor('ready 1');
        setValue(root, 2);
        await waitFor('ready 2');
        // The second compile's end moves the stamp: the CLI's next call does not compile again.
        await waitFor('Found 0 errors. Watching for file changes.', 2);
        // (node --watch may restart twice if tsc writes the files further apart than its debounce.)
        const readies = out.match(/ready \d/g)!;
        expect(readies[0]).toBe('ready 1');
        expect(readies.slice(readies.indexOf('ready 2'))).not.toContain('ready 1');
      } finally {
        dev.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
      expect(build(root)).toMatchObject({ code: 0, compiled: false });
    },
    LIMIT_MS,
  );
});
