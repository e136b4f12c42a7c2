// How a write transaction travels to SQLite's writer thread (sqlite-writer-thread.ts): packed into a few flat values
// instead of statements with arrays of parameters. Structured cloning a batch of 50 creates (16 statements, about
// 7,000 parameters) cost the main thread 47,000 instructions a create and the thread's deserializing 58,000; a typed
// array is copied whole (docs/benchmarks.md, branch sqlcreates).
import type { ThreadWrite } from './data-access.js';

/** A parameter's kind in PackedWrites.kinds. */
export const PARAMETER_KIND = { number: 0, string: 1, null: 2, other: 3 } as const;

/**
 * The statements of one transaction, packed. `plan` holds, for each statement in order: its number (the thread's
 * prepared statement), its count of parameters, its count of keyed places, then those places. Its parameters follow
 * each other in `kinds`; a number's value is the next of `numbers`, a string's the next of `strings`, another value (a
 * Buffer, a bigint) the next of `others`, each cloned as it is. (The strings stay apart: joined into one text, the
 * words index's tokens, whose mark is U+E000, made all of it two-byte and the conversions cost more than they saved.)
 */
export interface PackedWrites {
  plan: Int32Array;
  kinds: Uint8Array;
  numbers: Float64Array;
  strings: string[];
  others: unknown[];
  /** The SQL of the statements the thread has not prepared yet, with the numbers they get there. */
  texts: Array<{ statement: number; sql: string }>;
}

/**
 * Packs `writes`; `numberOf` answers a statement's number for its SQL text and whether the thread knows it already
 * (otherwise the text goes along).
 */
export function packWrites(
  writes: readonly ThreadWrite[],
  numberOf: (sql: string) => { statement: number; known: boolean },
): PackedWrites {
  let planLength = 0;
  let count = 0;
  let numberCount = 0;
  for (const { parameters, keyed } of writes) {
    planLength += 3 + (keyed?.length ?? 0);
    count += parameters.length;
    for (let j = 0; j < parameters.length; j++) {
      if (typeof parameters[j] === 'number') numberCount++;
    }
  }
  const plan = new Int32Array(planLength);
  const kinds = new Uint8Array(count);
  const numbers = new Float64Array(numberCount);
  // Filled by push: a packed array is cloned densely, one made with its length (holey) as a sparse one, key by key.
  const strings: string[] = [];
  const others: unknown[] = [];
  const texts: PackedWrites['texts'] = [];
  let p = 0;
  let k = 0;
  let n = 0;
  for (const { sql, parameters, keyed } of writes) {
    const { statement, known } = numberOf(sql);
    if (!known) texts.push({ statement, sql });
    plan[p++] = statement;
    plan[p++] = parameters.length;
    plan[p++] = keyed?.length ?? 0;
    if (keyed) for (let j = 0; j < keyed.length; j++) plan[p++] = keyed[j];
    for (let j = 0; j < parameters.length; j++) {
      const value = parameters[j];
      if (typeof value === 'number') {
        kinds[k++] = PARAMETER_KIND.number;
        numbers[n++] = value;
      } else if (typeof value === 'string') {
        kinds[k++] = PARAMETER_KIND.string;
        strings.push(value);
      } else if (value === null) kinds[k++] = PARAMETER_KIND.null;
      else {
        kinds[k++] = PARAMETER_KIND.other;
        others.push(value);
      }
    }
  }
  return { plan, kinds, numbers, strings, others, texts };
}

/**
 * The thread's side (CommonJS source, put into the thread's own): calls `run(statement, parameters, keyed)` for each
 * statement of a PackedWrites, in order.
 */
export const UNPACK_WRITES_SOURCE = `
function unpackWrites({ plan, kinds, numbers, strings, others }, run) {
  let p = 0, k = 0, n = 0, s = 0, o = 0;
  while (p < plan.length) {
    const statement = plan[p++];
    const count = plan[p++];
    const keyedCount = plan[p++];
    const keyed = plan.subarray(p, p + keyedCount);
    p += keyedCount;
    const parameters = new Array(count);
    for (let j = 0; j < count; j++) {
      switch (kinds[k++]) {
        case ${PARAMETER_KIND.number}: parameters[j] = numbers[n++]; break;
        case ${PARAMETER_KIND.string}: parameters[j] = strings[s++]; break;
        case ${PARAMETER_KIND.null}: parameters[j] = null; break;
        default: parameters[j] = others[o++];
      }
    }
    run(statement, parameters, keyed);
  }
}
`;
