// The walk-throughs of docs/api/*.md, run as written: each page's curl commands go, in order, through the real
// `curl` binary and a shell (so quoting, -d, -G, --data-urlencode and the cookie jar behave as they do for a reader)
// to the real service listening on a socket, started with the config shown in docs/api/authentication.md; status and
// answer must be what the page shows (format: walkthrough-format.ts). Both engines.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, describeEachEngine, startTestApp, type Engine, type TestApp } from '../helpers/test-app.js';
import { startUpstream, type Upstream } from '../flow/upstream.js';
import { matchJson, matchText, parseWalkthrough, type Step } from './walkthrough-format.js';

const DOCS = new URL('../../docs/api/', import.meta.url);
// In the order they are run: later pages may rely on what earlier ones leave (none does today).
const PAGES = [
  'authentication',
  'storage',
  'query',
  'forms',
  'notifications',
  'flow',
  'engine',
  'data-management',
  'admin',
];

const page = (name: string) => readFileSync(new URL(`${name}.md`, DOCS), 'utf8');

/** The config block of authentication.md (the one starting `# svc.yaml`), as the pages' readers start the service. */
function pagesConfig(): Record<string, any> {
  const block = /```yaml\n(# svc\.yaml[^\n]*\n[\s\S]*?)```/.exec(page('authentication'));
  if (!block) throw new Error('docs/api/authentication.md has no ```yaml block starting with "# svc.yaml"');
  return parseYaml(block[1]);
}

const ci = !['', 'false', '0'].includes((process.env.CI ?? '').trim().toLowerCase());
const haveCurl = spawnSync('curl', ['--version']).status === 0;
if (!haveCurl && ci) throw new Error('the docs walk-throughs need the curl binary (apt-get install curl)');
if (!haveCurl) console.warn('\n*** docs walk-throughs SKIPPED: no curl binary on this machine.\n');

interface CurlResult {
  status: number;
  body: string;
  exit: number;
  stderr: string;
}

const TIME_LIMIT = /(--max-time|-m)\s+\d+(\.\d+)?/;

/**
 * Runs one command of a page as a reader's shell would, `curl` writing the answer's headers and body to files. A
 * stream example ends with curl's own time limit on the page (`--max-time 1`); a busy machine could cut it short, so
 * here the limit is generous and curl is stopped once the answer has as many lines as the page shows, and a moment
 * more in which any further line would still show up as a difference.
 */
function runCommand(step: Step, cwd: string, vars: Record<string, string>): Promise<CurlResult> {
  const stream = TIME_LIMIT.test(step.command);
  const command = stream ? step.command.replace(TIME_LIMIT, '$1 60') : step.command;
  const script = `curl() { command curl -sS -o .answer -D .headers "$@"; }\n${command}\n`;
  const read = (file: string) => {
    try {
      return readFileSync(join(cwd, file), 'utf8');
    } catch {
      return ''; // nothing written: the status says why
    }
  };
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], {
      cwd,
      detached: true,
      env: { PATH: process.env.PATH, HOME: cwd, ...vars },
    });
    let err = '';
    let stopped = false;
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    const lines = step.answer.kind === 'text' ? step.answer.text.trimEnd().split('\n').length : Infinity;
    const poll = stream
      ? setInterval(() => {
          if (stopped || read('.answer').trimEnd().split('\n').length < lines) return;
          stopped = true;
          setTimeout(() => process.kill(-child.pid!, 'SIGTERM'), 300);
        }, 50)
      : undefined;
    child.on('close', (exit) => {
      clearInterval(poll);
      const statuses = [...read('.headers').matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)];
      const body = read('.answer');
      rmSync(join(cwd, '.answer'), { force: true });
      rmSync(join(cwd, '.headers'), { force: true });
      const status = Number(statuses.at(-1)?.[1] ?? 0);
      resolve({ status, body, exit: stopped || (stream && exit === 28) ? 0 : (exit ?? -1), stderr: err });
    });
  });
}

/** What a step's answer lacks against the page, as readable lines; the captures it makes when it matches. */
async function check(
  step: Step,
  cwd: string,
  vars: Record<string, string>,
): Promise<{ problems: string[]; captured: Record<string, string> }> {
  const res = await runCommand(step, cwd, vars);
  if (res.exit !== 0) return { problems: [`curl exited with ${res.exit}: ${res.stderr.trim()}`], captured: {} };
  const problems: string[] = [];
  if (res.status !== step.status) problems.push(`status: expected ${step.status}, got ${res.status}`);
  let result;
  if (step.answer.kind === 'text') result = matchText(step.answer.text, res.body, vars);
  else {
    let actual: unknown;
    try {
      actual = JSON.parse(res.body);
    } catch {
      return { problems: [...problems, `the answer is not JSON: ${res.body.slice(0, 500)}`], captured: {} };
    }
    result = matchJson(step.answer.value, actual, vars);
    if (result.problems.length) result.problems.push(`the whole answer: ${JSON.stringify(actual)}`);
  }
  return { problems: [...problems, ...result.problems], captured: problems.length ? {} : result.captured };
}

describe('docs walk-throughs', () => {
  it('every page of docs/api has a walk-through in the format, and this test runs it', () => {
    const pages = readdirSync(DOCS)
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3));
    expect([...PAGES].sort()).toEqual(pages.sort());
    for (const name of PAGES) expect(parseWalkthrough(page(name)).length, name).toBeGreaterThan(0);
  });
});

// One service per engine for all pages (a start costs seconds on a busy machine): the pages touch different stores,
// forms and APIs, and each page has its own variables and cookie jar.
function walkThrough(engine: Engine): void {
  let t: TestApp;
  let upstream: Upstream;
  const base: Record<string, string> = {};
  beforeAll(async () => {
    upstream = await startUpstream();
    const config = pagesConfig();
    // The pages show a flow instance at a fixed address; here it is the test's upstream on a free port. No
    // heartbeat comment may fall into the second a stream example reads.
    config.flow.instances[0].url = `${upstream.url}/base`;
    config.notifications = { ...config.notifications, heartbeatSeconds: 3600 };
    t = await startTestApp(engine, config);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    Object.assign(base, {
      BASE: `http://127.0.0.1:${port}`,
      APIKEY: config.tenants[0].apiKeys[0].key,
      PASSWORD: ADMIN_PASSWORD,
    });
  });
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
  });

  for (const name of PAGES) {
    describe(`${name}.md`, () => {
      const vars: Record<string, string> = {};
      let cwd: string;
      beforeAll(() => {
        cwd = mkdtempSync(join(tmpdir(), 'svc-walkthrough-'));
        Object.assign(vars, base);
      });
      afterAll(() => {
        if (cwd) rmSync(cwd, { recursive: true, force: true });
      });
      for (const step of parseWalkthrough(page(name))) {
        it(`line ${step.line}: ${step.command.split('\n')[0].slice(0, 100)}`, async () => {
          const { problems, captured } = await check(step, cwd, vars);
          expect(problems, `docs/api/${name}.md line ${step.line}:\n${step.command}`).toEqual([]);
          Object.assign(vars, captured);
        });
      }
    });
  }
}

if (haveCurl) describeEachEngine('docs/api walk-throughs', walkThrough);
else describe.skip('docs/api walk-throughs (no curl)', () => undefined);
