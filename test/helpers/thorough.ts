// How many cases a property or differential test runs. By default a fixed small number, so that a test's time does
// not grow with the machine's load past its limit; `THOROUGH=1` runs the larger number (locally, before a change to
// the code a property test guards, or on a schedule). The default must still reach every branch the test was written
// for; each test says in a comment what THOROUGH adds.

/** True when the run asked for the thorough numbers (`THOROUGH=1`, or `true`). */
export function thorough(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.THOROUGH;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/** `defaultN` cases, or `thoroughN` under `THOROUGH=1`. */
export function runs(defaultN: number, thoroughN: number, env: NodeJS.ProcessEnv = process.env): number {
  return thorough(env) ? thoroughN : defaultN;
}
