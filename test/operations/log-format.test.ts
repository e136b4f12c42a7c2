// The log lines of the built service: JSON when stdout is not a terminal, readable lines (pino-pretty) in a terminal
// unless LOG_FORMAT=json, and readable lines on a pipe when asked (LOG_FORMAT=pretty). Each line of a request carries
// its id, the one answered in X-Request-Id. The terminal is a real pseudo-terminal (util-linux `script`).
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { MAIN } from '../helpers/cli.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { freePort } from '../helpers/service-process.js';
import { OPS_CONFIG, processPlace } from './process-kit.js';

const PROCESS_TEST_MS = 120_000;
const hasScript = spawnSync('script', ['--version']).status === 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ANSI = /\u001b\[[0-9;]*m/g;

interface Run {
  /** The request id answered by a request to the running service. */
  requestId: string;
  /** Everything the process wrote to its stdout (or the terminal), colour codes removed. */
  output: string;
  colours: boolean;
}

/** Starts the service (in a pseudo-terminal when `tty`), makes one request, stops it and answers its output. */
async function runOnce(place: { dir: string; env: Record<string, string> }, tty: boolean, env: Record<string, string>) {
  const port = await freePort();
  const configFile = join(place.dir, `config-${port}.json`);
  writeFileSync(configFile, JSON.stringify(OPS_CONFIG));
  const vars = {
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'info',
    SVC_CONFIG: configFile,
    HOST: '127.0.0.1',
    PORT: String(port),
    ...place.env,
    ...env,
  };
  const child = tty
    ? spawn('script', ['-qefc', `'${process.execPath}' '${MAIN}' start`, '/dev/null'], { env: vars })
    : spawn(process.execPath, [MAIN, 'start'], { env: vars });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ok = await fetch(`${url}/livez`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`service did not start: ${output}`);
      await sleep(50);
    }
    const res = await fetch(`${url}/cxf/svc-core/notification`);
    expect(res.status).toBe(401);
    const requestId = res.headers.get('x-request-id')!;
    // The request's lines are written (through pino's worker for readable lines) before the process is stopped.
    // Both of its lines: the request's and the answer's.
    while (output.split(requestId).length < 3) {
      if (Date.now() > deadline) throw new Error(`no log line of ${requestId}: ${output}`);
      await sleep(25);
    }
    return {
      requestId,
      output: output.replace(ANSI, '').replace(/\r/g, ''),
      colours: output.includes('\u001b['),
    } as Run;
  } finally {
    if (tty) child.kill('SIGTERM');
    else child.kill('SIGINT');
    await exited;
  }
}

function jsonLinesOf(run: Run): Array<Record<string, unknown>> {
  const lines = run.output.split('\n').filter((l) => l.trim());
  return lines.map((l) => JSON.parse(l));
}

describeEachEngine('log format', (engine) => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.reverse()) await c();
    cleanups.length = 0;
  });

  it(
    'writes JSON lines on a pipe and readable ones when asked, each request line with its id',
    async () => {
      const place = await processPlace(engine);
      cleanups.push(() => place.cleanup());
      const json = await runOnce(place, false, {});
      const lines = jsonLinesOf(json); // every line is JSON
      expect(lines.filter((l) => l.reqId === json.requestId).map((l) => l.msg)).toEqual([
        'incoming request',
        'request completed',
      ]);
      const pretty = await runOnce(place, false, { LOG_FORMAT: 'pretty' });
      expect(pretty.output).toMatch(
        new RegExp(`\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\] INFO: \\[${pretty.requestId}\\] incoming request`),
      );
      expect(pretty.output).not.toMatch(/^\{"level"/m);
      expect(pretty.colours).toBe(false);
    },
    PROCESS_TEST_MS,
  );

  it.skipIf(!hasScript)(
    'writes readable lines in a terminal unless LOG_FORMAT=json',
    async () => {
      const place = await processPlace(engine);
      cleanups.push(() => place.cleanup());
      const pretty = await runOnce(place, true, {});
      expect(pretty.output).toContain(`INFO: [${pretty.requestId}] incoming request`);
      expect(pretty.colours).toBe(true);
      const json = await runOnce(place, true, { LOG_FORMAT: 'json' });
      const lines = jsonLinesOf(json);
      expect(lines.filter((l) => l.reqId === json.requestId)).toHaveLength(2);
    },
    PROCESS_TEST_MS,
  );
});
