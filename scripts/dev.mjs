#!/usr/bin/env node
// `npm run dev`: tsc --watch rebuilds dist/ on every change under src/, and node --watch restarts the service when
// dist/ changes. The service starts once the first compile is written (so the initial emit does not restart it), and
// after each compile without errors the build stamp moves, so `npm run cli` does not compile the same sources again.
// Ctrl-C (or SIGTERM) stops both; so does the exit of either.
//
// usage: node scripts/dev.mjs [project directory, default: this repository]; the service reads the usual variables.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tscCommand, writeStamp } from './build-if-changed.mjs';

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const [node, tsc] = tscCommand(root);
const compiler = spawn(node, [tsc, '-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let service;
let compileStartedAt = Date.now();
let pending = '';

compiler.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  pending += chunk;
  const lines = pending.split('\n');
  pending = lines.pop();
  for (const line of lines) {
    if (/Starting (incremental )?compilation/.test(line)) compileStartedAt = Date.now();
    const found = /Found (\d+) errors?\. Watching for file changes/.exec(line);
    if (!found) continue;
    if (found[1] === '0') writeStamp(root, compileStartedAt);
    if (!service) startService();
  }
});

function startService() {
  service = spawn(process.execPath, ['--watch', join('dist', 'main.js'), 'start'], { cwd: root, stdio: 'inherit' });
  service.on('exit', (code, signal) => stop(code ?? (signal ? 1 : 0)));
}

let stopping = false;
function stop(code) {
  if (stopping) return;
  stopping = true;
  compiler.kill('SIGTERM');
  if (service && service.exitCode === null && service.signalCode === null) {
    service.once('exit', () => process.exit(code));
    service.kill('SIGTERM');
  } else process.exit(code);
}

compiler.on('exit', (code) => stop(code ?? 1));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(0));
