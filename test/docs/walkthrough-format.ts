// The walk-throughs of docs/api/*.md in the one format the docs test reads. A step is three things in a row:
//
//   ```sh                      a fenced `sh` block whose first line starts with `curl` (one command; lines may
//   curl ... \                 continue with a trailing backslash)
//     ...
//   ```
//   → 200, any words           the status the service answers: a line starting with `→` and three digits (its
//                              words may go on over more lines)
//   ```json                    the answer, the next fenced block: `json` (compared as JSON) or `text` (compared
//   { ... }                    line by line); blank lines may separate the three
//   ```
//
// In answers, `$NAME` (capitals, digits, `_`) is a value that differs between runs. The first time a page shows it,
// it is captured (a whole JSON value, or the part of a string it stands in); later commands use it as a shell
// variable and later answers must show the same value. ISO 8601 UTC timestamps, UUIDs and epoch milliseconds match
// any value of their kind. `"...": "..."` in an object allows further members; `"..."` as an array's last element
// allows further elements. Object members compare in any order (the engines keep different orders).
// A `sh` block that starts with `curl` and is not followed by a status line is an error, so no example goes unchecked.

export interface Step {
  /** 1-based line of the command in the page. */
  line: number;
  command: string;
  status: number;
  answer: { kind: 'json'; value: unknown } | { kind: 'text'; text: string };
}

interface Fence {
  info: string;
  body: string;
  start: number;
  end: number;
}

function fences(lines: string[]): Fence[] {
  const out: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i]);
    if (!open) continue;
    let j = i + 1;
    while (j < lines.length && lines[j] !== '```') j++;
    if (j >= lines.length) throw new Error(`line ${i + 1}: a fence that is never closed`);
    out.push({ info: open[1].trim(), body: lines.slice(i + 1, j).join('\n'), start: i, end: j });
    i = j;
  }
  return out;
}

const STATUS_LINE = /^→\s*(\d{3})\b/;

export function parseWalkthrough(markdown: string): Step[] {
  const lines = markdown.split('\n');
  const all = fences(lines);
  const steps: Step[] = [];
  for (let k = 0; k < all.length; k++) {
    const f = all[k];
    if (f.info.split(/\s+/)[0] !== 'sh' || !/^curl\s/.test(f.body)) continue;
    const where = `line ${f.start + 2}`;
    let i = f.end + 1;
    while (i < lines.length && lines[i].trim() === '') i++;
    const status = STATUS_LINE.exec(lines[i] ?? '');
    if (!status) throw new Error(`${where}: a curl command without a status line (→ 200) after it`);
    // The status line's words may go on over more lines; the next fenced block is the answer.
    const answer = all[k + 1];
    if (!answer) throw new Error(`${where}: no answer block after its status line`);
    const kind = answer.info.split(/\s+/)[0];
    if (kind !== 'json' && kind !== 'text')
      throw new Error(`${where}: the answer block is \`${kind}\`, not json or text`);
    let value: unknown;
    if (kind === 'json') {
      try {
        value = JSON.parse(answer.body);
      } catch (err) {
        throw new Error(`${where}: the answer is not JSON: ${(err as Error).message}`);
      }
    }
    steps.push({
      line: f.start + 2,
      command: f.body,
      status: Number(status[1]),
      answer: kind === 'json' ? { kind, value } : { kind: 'text', text: answer.body },
    });
    k++;
  }
  return steps;
}

// ---- matching ----

const PLACEHOLDER = /\$([A-Z][A-Z0-9_]*)/g;
const WHOLE_PLACEHOLDER = /^\$([A-Z][A-Z0-9_]*)$/;
const TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z/;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const LOOSE = new RegExp(`${PLACEHOLDER.source}|(${TIMESTAMP.source})|(${UUID.source})`, 'g');
const ELLIPSIS = '...';

function isEpochMillis(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1e12 && v < 1e14;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Matches one expected string against an actual one; returns the captures, or undefined when they differ. */
function matchString(
  expected: string,
  actual: string,
  vars: Record<string, string>,
): Record<string, string> | undefined {
  const names: string[] = [];
  let pattern = '';
  let last = 0;
  for (const m of expected.matchAll(LOOSE)) {
    pattern += escape(expected.slice(last, m.index));
    last = m.index! + m[0].length;
    const name = m[1];
    if (m[2] !== undefined) pattern += TIMESTAMP.source;
    else if (m[3] !== undefined) pattern += UUID.source;
    else if (name in vars) pattern += escape(vars[name]);
    else if (names.includes(name)) pattern += `\\k<${name}>`;
    else {
      names.push(name);
      pattern += `(?<${name}>.*?)`;
    }
  }
  pattern += escape(expected.slice(last));
  const m = new RegExp(`^${pattern}$`, 's').exec(actual);
  if (!m) return undefined;
  return Object.fromEntries(names.map((n) => [n, m.groups![n]]));
}

export interface MatchResult {
  problems: string[];
  captured: Record<string, string>;
}

/** Compares an answer with the page's expected one. Captures are made only where no problem was found. */
export function matchJson(expected: unknown, actual: unknown, vars: Record<string, string>): MatchResult {
  const problems: string[] = [];
  const captured: Record<string, string> = {};
  const known = () => ({ ...vars, ...captured });
  const walk = (exp: unknown, act: unknown, path: string): void => {
    if (typeof exp === 'string') {
      const whole = WHOLE_PLACEHOLDER.exec(exp);
      if (whole) {
        const text = typeof act === 'string' ? act : JSON.stringify(act);
        const have = known()[whole[1]];
        if (have === undefined) captured[whole[1]] = text;
        else if (have !== text)
          problems.push(`${path}: expected ${exp} = ${JSON.stringify(have)}, got ${JSON.stringify(act)}`);
        return;
      }
      const got = typeof act === 'string' ? matchString(exp, act, known()) : undefined;
      if (!got) problems.push(`${path}: expected ${JSON.stringify(exp)}, got ${JSON.stringify(act)}`);
      else Object.assign(captured, got);
      return;
    }
    if (isEpochMillis(exp)) {
      if (!isEpochMillis(act)) problems.push(`${path}: expected epoch milliseconds, got ${JSON.stringify(act)}`);
      return;
    }
    if (Array.isArray(exp)) {
      if (!Array.isArray(act)) return void problems.push(`${path}: expected an array, got ${JSON.stringify(act)}`);
      const open = exp.length > 0 && exp[exp.length - 1] === ELLIPSIS;
      const items = open ? exp.slice(0, -1) : exp;
      if (open ? act.length < items.length : act.length !== items.length) {
        problems.push(
          `${path}: expected ${open ? 'at least ' : ''}${items.length} elements, got ${act.length}: ${JSON.stringify(act)}`,
        );
        return;
      }
      items.forEach((e, i) => walk(e, act[i], `${path}[${i}]`));
      return;
    }
    if (exp !== null && typeof exp === 'object') {
      if (act === null || typeof act !== 'object' || Array.isArray(act)) {
        return void problems.push(`${path}: expected an object, got ${JSON.stringify(act)}`);
      }
      const e = exp as Record<string, unknown>;
      const a = act as Record<string, unknown>;
      const open = ELLIPSIS in e;
      for (const key of Object.keys(e)) {
        if (key === ELLIPSIS) continue;
        if (!(key in a)) problems.push(`${path}.${key}: missing`);
        else walk(e[key], a[key], `${path}.${key}`);
      }
      if (!open)
        for (const key of Object.keys(a))
          if (!(key in e)) problems.push(`${path}.${key}: not expected (${JSON.stringify(a[key])})`);
      return;
    }
    if (exp !== act) problems.push(`${path}: expected ${JSON.stringify(exp)}, got ${JSON.stringify(act)}`);
  };
  walk(expected, actual, '$');
  return { problems, captured: problems.length ? {} : captured };
}

/** Compares a text answer line by line, each line with the string rules above. */
export function matchText(expected: string, actual: string, vars: Record<string, string>): MatchResult {
  const exp = expected.trimEnd().split('\n');
  const act = actual.trimEnd().split('\n');
  const captured: Record<string, string> = {};
  const problems: string[] = [];
  if (exp.length !== act.length) problems.push(`expected ${exp.length} lines, got ${act.length}:\n${actual}`);
  else {
    exp.forEach((line, i) => {
      const got = matchString(line, act[i], { ...vars, ...captured });
      if (!got) problems.push(`line ${i + 1}: expected ${JSON.stringify(line)}, got ${JSON.stringify(act[i])}`);
      else Object.assign(captured, got);
    });
  }
  return { problems, captured: problems.length ? {} : captured };
}
