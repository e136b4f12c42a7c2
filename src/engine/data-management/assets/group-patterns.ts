// The regular expressions of an asset query's `withoutAttributeGroups` (interface-spec, Asset query): a caller's
// patterns, so they run on a linear-time engine (RE2, re2js) within a budget per request, never on JavaScript's
// backtracking one, where `(a|aa)+` against a 40-character group takes seconds and doubles with each character.
import { RE2JS } from 're2js';
import { DM_ERRORS } from '../dm.errors.js';
import type { RequestBudget } from '../method.js';

/** The budget of one HTTP request's pattern work, shared by a batch's calls (docs/security.md states it). */
export const PATTERN_LIMITS = {
  /**
   * Instructions of all patterns' programs together, bounded from the text before compiling (compiling costs time
   * in proportion, and `x{1000}` is a thousand copies of x).
   */
  program: 1000,
  /**
   * Matching work: program instructions x characters of the groups tested (each distinct group once). The engine's
   * slowest case (a program its DFA gives up on, Unicode classes) takes about 0.25 microseconds a unit here, so this
   * is at most about half a second of work, in slices.
   */
  work: 2_000_000,
  /** Work between two turns of the event loop given to other requests (about 12 ms at the slowest). */
  slice: 50_000,
} as const;

const PARAMETER = 'withoutAttributeGroups';

/** Where a character class opened at `i` ends (just after its `]`). */
function classEnd(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === '^') j++;
  if (p[j] === ']') j++; // a leading ] is a member
  while (j < p.length && p[j] !== ']') {
    if (p[j] === '\\') j += 2;
    else if (p[j] === '[' && p[j + 1] === ':') {
      const end = p.indexOf(':]', j + 2);
      j = end < 0 ? j + 1 : end + 2;
    } else j++;
  }
  return j + 1;
}

/**
 * An upper bound of the instructions RE2 compiles `pattern` to, from its text: every atom counts 2 (an instruction or
 * a capture's two), every operator 1, and a counted repetition `{n,m}` as max(n, m) copies of what it repeats plus a
 * split per copy, so nested counts multiply as they do in the program. Unbalanced or invalid text is refused by the
 * compiler afterwards; the bound only has to keep that compile cheap.
 */
export function programBound(pattern: string): number {
  const counted = /\{(\d+)(?:(,)(\d*))?\}/y;
  const outer: number[] = [];
  let size = 0; // of the group being read, so far
  let last = 0; // of its last atom: what a repetition copies (0 after `(` or `|`)
  const atom = (s: number) => {
    size += s;
    last = s;
  };
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i];
    if (c === '\\') {
      const e = pattern[i + 1];
      if (e === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const stop = end < 0 ? pattern.length : end;
        atom(2 * Math.max(1, stop - (i + 2)));
        i = end < 0 ? pattern.length : end + 2;
      } else if ((e === 'p' || e === 'P' || e === 'x') && pattern[i + 2] === '{') {
        const end = pattern.indexOf('}', i + 3);
        i = end < 0 ? pattern.length : end + 1;
        atom(2);
      } else {
        i += 2;
        atom(2);
      }
    } else if (c === '[') {
      i = classEnd(pattern, i);
      atom(2);
    } else if (c === '(') {
      let j = i + 1;
      if (pattern[j] === '?') {
        while (j < pattern.length && pattern[j] !== ')' && pattern[j] !== ':' && pattern[j] !== '>') j++;
        if (pattern[j] === ')') {
          i = j + 1; // flags only, `(?i)`: no group
          continue;
        }
        j++;
      }
      outer.push(size);
      size = 0;
      last = 0;
      i = j;
    } else if (c === ')') {
      const group = size + 2;
      size = outer.pop() ?? 0;
      atom(group);
      i++;
    } else if (c === '|') {
      size += 1;
      last = 0;
      i++;
    } else if (c === '*' || c === '+' || c === '?') {
      size += 1;
      i++;
    } else {
      counted.lastIndex = i;
      const m = c === '{' && last > 0 ? counted.exec(pattern) : null;
      if (m) {
        const low = Number(m[1]);
        const high = m[2] === undefined ? low : m[3] ? Number(m[3]) : low + 1;
        const copies = Math.max(low, high, 1);
        size += last * (copies - 1) + copies;
        last = last * copies + copies;
        i += m[0].length;
      } else {
        atom(2);
        i++;
      }
    }
  }
  while (outer.length > 0) size += (outer.pop() ?? 0) + 2;
  return size + 4;
}

/**
 * The caller's patterns, compiled, and whether a group matches one of them (the whole group, as `^(?:p)$` would).
 * One instance per call: it remembers each group's answer and charges the request's budget.
 */
export class GroupPatterns {
  private readonly answers = new Map<string, boolean>();
  private sinceYield = 0;

  private constructor(
    private readonly patterns: RE2JS[],
    private readonly method: string,
    /** Instructions of all programs together. */
    private readonly size: number,
    private readonly budget: RequestBudget,
  ) {}

  /**
   * Compiles the patterns (JavaScript escapes such as `\u00e4` are translated to RE2's). Invalid or unsupported
   * syntax (backreferences, lookaround) and patterns over the budget are 400 naming the parameter. Undefined when
   * there are none.
   */
  static compile(sources: string[] | undefined, method: string, budget: RequestBudget): GroupPatterns | undefined {
    if (!sources || sources.length === 0) return undefined;
    const translated = sources.map((s) => RE2JS.translateRegExp(s));
    const bounds = translated.map(programBound);
    const tooLarge = bounds.findIndex((b) => b > PATTERN_LIMITS.program);
    if (tooLarge >= 0) {
      throw DM_ERRORS.invalidCall(
        `${method}: ${PARAMETER}/${tooLarge} is too large (${bounds[tooLarge]} instructions; at most ${PATTERN_LIMITS.program}, where x{n} counts n copies of x)`,
        { path: `parameters/${PARAMETER}/${tooLarge}` },
      );
    }
    const bound = budget.patternProgram + bounds.reduce((n, b) => n + b, 0);
    if (bound > PATTERN_LIMITS.program) {
      throw DM_ERRORS.invalidCall(
        `${method}: ${PARAMETER}: the patterns are too large (${bound} instructions; at most ${PATTERN_LIMITS.program} together in one request, where x{n} counts n copies of x)`,
        { path: `parameters/${PARAMETER}` },
      );
    }
    const compiled = translated.map((s, i) => {
      try {
        return RE2JS.compile(s);
      } catch (err) {
        const why = err instanceof Error ? err.message.replace(/^error parsing regexp: /, '') : 'invalid';
        throw DM_ERRORS.invalidCall(
          `${method}: ${PARAMETER}/${i} is not a regular expression of RE2's syntax (no backreferences or lookaround): ${why.slice(0, 200)}`,
          {
            path: `parameters/${PARAMETER}/${i}`,
          },
        );
      }
    });
    budget.patternProgram = bound;
    return new GroupPatterns(
      compiled,
      method,
      compiled.reduce((n, p) => n + p.programSize(), 0),
      budget,
    );
  }

  /** Whether `group` matches one of the patterns whole. Gives the event loop a turn between slices of work. */
  async matches(group: string): Promise<boolean> {
    const known = this.answers.get(group);
    if (known !== undefined) return known;
    const cost = this.size * (group.length + 1);
    this.budget.patternWork += cost;
    if (this.budget.patternWork > PATTERN_LIMITS.work) {
      throw DM_ERRORS.invalidCall(
        `${this.method}: ${PARAMETER}: matching the patterns against the attribute groups of the templates asked needs more work than one request may do; use fewer or simpler patterns`,
        { path: `parameters/${PARAMETER}` },
      );
    }
    if (this.sinceYield + cost > PATTERN_LIMITS.slice) {
      this.sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.sinceYield += cost;
    const answer = this.patterns.some((p) => p.testExact(group));
    this.answers.set(group, answer);
    return answer;
  }
}
