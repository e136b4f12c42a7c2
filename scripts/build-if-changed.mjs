#!/usr/bin/env node
// Builds dist/ (tsc -p tsconfig.build.json) only when a source changed since the last build: `npm run cli` and
// `npm start` ran the whole compiler before every call (6-30 s, where the command itself takes about one).
//
// "Changed" is by modification time: any file or directory under src/ (a directory's time moves when a file is added,
// removed or renamed in it), the tsconfig files or the package files newer than dist/.build-stamp, whose time is
// that of the start of the last build this script (or `npm run dev`) made. No stamp, or no dist/main.js: build.
// The client SDK (sdk/, when the project has it) is judged the same way on its own: sdk/src/, its tsconfig and
// package file against sdk/dist/.build-stamp, and built with `tsc -p sdk/tsconfig.json` when one changed.
//
// The console (console/, a Vite app) is built the same way, into console/dist, when a file of its own (console/src/,
// index.html, vite.config.ts, its package.json, the package lock, sdk/src/) is newer than console/dist/.build-stamp.
//
// usage: node scripts/build-if-changed.mjs [--console] [project directory, default: this repository]
//   --console: only the console (the browser tests' helper)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];
const STAMP = join('dist', '.build-stamp');

const SDK = { dir: 'sdk', inputs: ['tsconfig.json', 'package.json'], stamp: join('dist', '.build-stamp') };

/** The newest modification time (ms) of src/'s files and directories and of the input files. */
function newestInput(root, inputFiles = INPUT_FILES) {
  let newest = 0;
  const visit = (path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    newest = Math.max(newest, stat.mtimeMs);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(join(root, 'src'));
  for (const name of inputFiles) visit(join(root, name));
  return newest;
}

/** Whether the project has the SDK and its dist/ may be older than its sources. */
export function sdkNeedsBuild(root) {
  const sdk = join(root, SDK.dir);
  if (!existsSync(join(sdk, 'tsconfig.json'))) return false;
  const stamp = statSync(join(sdk, SDK.stamp), { throwIfNoEntry: false });
  if (!stamp || !existsSync(join(sdk, 'dist', 'index.js'))) return true;
  return newestInput(sdk, SDK.inputs) > stamp.mtimeMs;
}

/** Whether dist/ may be older than the sources. */
export function needsBuild(root) {
  const stamp = statSync(join(root, STAMP), { throwIfNoEntry: false });
  if (!stamp || !existsSync(join(root, 'dist', 'main.js'))) return true;
  return newestInput(root) > stamp.mtimeMs;
}

/** Records that dist/ holds the sources as they were at `startedAt` (ms): later changes are newer than the stamp. */
export function writeStamp(root, startedAt, stamp = STAMP) {
  const path = join(root, stamp);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, "dist/ was built from the sources as they were at this file's modification time\n");
  utimesSync(path, startedAt / 1000, startedAt / 1000);
}

/** The project's own tsc, run by this node. */
export function tscCommand(root) {
  return [process.execPath, createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc')];
}

export function buildIfChanged(root) {
  const [node, tsc] = tscCommand(root);
  if (needsBuild(root)) {
    const startedAt = Date.now();
    process.stderr.write('build: sources changed since the last build; tsc -p tsconfig.build.json\n');
    const run = spawnSync(node, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) return run.status ?? 1;
    writeStamp(root, startedAt);
  }
  if (sdkNeedsBuild(root)) {
    const startedAt = Date.now();
    process.stderr.write('build: sdk sources changed since the last build; tsc -p sdk/tsconfig.json\n');
    const run = spawnSync(node, [tsc, '-p', join(SDK.dir, 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) return run.status ?? 1;
    writeStamp(join(root, SDK.dir), startedAt, SDK.stamp);
  }
  return 0;
}

const CONSOLE_INPUTS = ['src', 'index.html', 'vite.config.ts', 'package.json', 'tsconfig.json', 'scripts'];
const CONSOLE_STAMP = join('console', 'dist', '.build-stamp');

/** Whether console/dist may be older than the console's sources (false when the project has no console). */
export function consoleNeedsBuild(root) {
  if (!existsSync(join(root, 'console', 'package.json'))) return false;
  const stamp = statSync(join(root, CONSOLE_STAMP), { throwIfNoEntry: false });
  if (!stamp || !existsSync(join(root, 'console', 'dist', 'index.html'))) return true;
  let newest = statSync(join(root, 'package-lock.json'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const visit = (path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    newest = Math.max(newest, stat.mtimeMs);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  for (const name of CONSOLE_INPUTS) visit(join(root, 'console', name));
  visit(join(root, 'sdk', 'src')); // the console bundles the SDK from its sources
  return newest > stamp.mtimeMs;
}

/** vite build, then the .br/.gz copies (console/scripts/compress.mjs), as `npm run build -w console` does. */
export function buildConsoleIfChanged(root) {
  if (!consoleNeedsBuild(root)) return 0;
  const startedAt = Date.now();
  const cwd = join(root, 'console');
  process.stderr.write('build: console sources changed since the last build; vite build\n');
  const vitePackage = createRequire(join(cwd, 'package.json')).resolve('vite/package.json');
  const vite = join(dirname(vitePackage), 'bin', 'vite.js');
  for (const args of [
    [vite, 'build', '--logLevel', 'warn'],
    [join('scripts', 'compress.mjs'), 'dist'],
  ]) {
    const run = spawnSync(process.execPath, args, { cwd, stdio: 'inherit' });
    if (run.status !== 0) return run.status ?? 1;
  }
  const stamp = join(root, CONSOLE_STAMP);
  writeFileSync(stamp, "console/dist was built from the console's sources as they were at this file's time\n");
  utimesSync(stamp, startedAt / 1000, startedAt / 1000);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const consoleOnly = args.includes('--console');
  const dir = args.find((a) => !a.startsWith('--'));
  const root = resolve(dir ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  process.exitCode = (consoleOnly ? 0 : buildIfChanged(root)) || buildConsoleIfChanged(root);
}
