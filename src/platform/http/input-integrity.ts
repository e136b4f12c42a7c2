// What a request may carry so that every engine stores it as sent: text without NUL or unpaired surrogates (PostgreSQL
// cannot store them in text or jsonb, SQLite would), numbers a double can carry back, JSON nested no deeper than
// MAX_JSON_DEPTH (deeper values overflowed the stack where they were serialised). Checked once, for every route,
// before schema validation (the credentials of Basic before any authentication); a refused request reaches no
// handler, so it changes nothing.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ERRORS, type FieldError } from '../errors/error-catalogue.js';

/** NUL, or a surrogate half: the quick test; `unpaired` then decides. */
const SUSPECT = /[\u0000\ud800-\udfff]/;
const UNPAIRED = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const TEXT_PROBLEM = 'holds a NUL character (\\u0000) or an unpaired UTF-16 surrogate, which cannot be stored';

/**
 * How deep objects and arrays may nest in a request body, its root counted as level 1 (`{"a":[1]}` is 2 levels): the
 * one limit for every JSON the service stores, the forms API's (a form's components nest 32 levels, each an array and
 * an object). APIs may hold their own values to less (storage: 64 in an item's value). The walk that checks it recurses
 * at most this deep, so it cannot overflow the stack itself.
 */
export const MAX_JSON_DEPTH = 128;
const DEPTH_PROBLEM = `JSON may be nested at most ${MAX_JSON_DEPTH} levels deep`;

const isUnstorable = (s: string) => SUSPECT.test(s) && UNPAIRED.test(s);

const child = (path: string, key: string | number) =>
  typeof key === 'number'
    ? `${path}[${key}]`
    : /^[A-Za-z_$][\w$]*$/.test(key)
      ? `${path}.${key}`
      : `${path}[${JSON.stringify(key)}]`;

/**
 * The first string, key or number of a parsed value that cannot be stored as it is, as a field error (`path` in
 * the validation errors' form: `body.value.items[2].name`); undefined when all can.
 */
export function findUnstorable(value: unknown, path: string): FieldError | undefined {
  // Every request passes here with every value of its body: the path of a value is built only for the one refused.
  const trail: Array<string | number> = [];
  const message = problemIn(value, trail, 1);
  if (message === undefined) return undefined;
  // The place of a too deep value is a hundred keys long: the part of the request says enough.
  if (message === DEPTH_PROBLEM) return { path, message };
  let at = path;
  for (let i = trail.length - 1; i >= 0; i--) at = child(at, trail[i]);
  return { path: at, message };
}

/**
 * Objects as parsers make them: plain ones, and the prototype-less kinds of the query-string and form parsers
 * (fast-querystring's objects inherit from an object without prototype). Streams and buffers are not parsed input.
 */
function isParsedObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null;
}

/** What cannot be stored in `value`, or undefined; the keys down to it are pushed onto `trail`, innermost first. */
function problemIn(value: unknown, trail: Array<string | number>, depth: number): string | undefined {
  if (typeof value === 'string') return isUnstorable(value) ? `text ${TEXT_PROBLEM}` : undefined;
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : 'number is beyond the range of a double (about 1.8e308)';
  if (value === null || typeof value !== 'object') return undefined;
  if (depth > MAX_JSON_DEPTH) return DEPTH_PROBLEM;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = problemIn(value[i], trail, depth + 1);
      if (found !== undefined) {
        trail.push(i);
        return found;
      }
    }
    return undefined;
  }
  if (!isParsedObject(value)) return undefined;
  for (const key of Object.keys(value)) {
    if (isUnstorable(key)) return `a key ${TEXT_PROBLEM}`;
    const found = problemIn((value as Record<string, unknown>)[key], trail, depth + 1);
    if (found !== undefined) {
      trail.push(key);
      return found;
    }
  }
  return undefined;
}

/** Only text with a long exponent or a long run of digits can hold a number that a double turns into 0. */
const MAYBE_UNDERFLOW = /[eE]-\d{3}|\d{300}/;

/**
 * The first number literal of a JSON text that parses to 0 although it is not zero (below the smallest double,
 * about 5e-324); undefined when there is none. Strings are skipped, so text that looks like a number is not one.
 */
export function findUnderflow(text: string): string | undefined {
  if (!MAYBE_UNDERFLOW.test(text)) return undefined;
  const token = /"(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
  for (let m = token.exec(text); m; m = token.exec(text)) {
    const literal = m[0];
    if (literal[0] === '"') continue;
    const mantissa = literal.split(/[eE]/)[0];
    if (Number(literal) === 0 && /[1-9]/.test(mantissa)) return literal;
  }
  return undefined;
}

function checkRequest(request: FastifyRequest): FieldError | undefined {
  // The router's params and the query parser's object are not plain objects: copied, they are walked like a body.
  return (
    findUnstorable({ ...(request.params as object) }, 'params') ??
    findUnstorable({ ...(request.query as object) }, 'querystring') ??
    findUnstorable(request.body, 'body')
  );
}

/**
 * The name and password of `Authorization: Basic`, decoded as the engine's routes decode them (base64, then UTF-8, which
 * turns bytes that are no UTF-8 into U+FFFD, never a lone surrogate): a NUL would reach the user lookup's SQL.
 */
function basicCredentialsProblem(header: string | undefined): FieldError | undefined {
  if (header === undefined || header.length < 7 || !/^basic\s/i.test(header)) return undefined;
  const text = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  return isUnstorable(text)
    ? { path: 'headers.authorization', message: `the Basic credentials hold a NUL character (\\u0000)` }
    : undefined;
}

/**
 * The JSON body parser of every route (Fastify's own, with its prototype-poisoning protection) plus the two rules
 * above, and the same rules for path parameters, query strings and form bodies. An empty JSON body on a route
 * that takes no body is no body (many clients send `Content-Type: application/json` on every request).
 */
export function installInputIntegrity(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.length === 0 && !request.routeOptions.schema?.body) {
      done(null, undefined);
      return;
    }
    parseJson(request, text, (err: Error | null, value: unknown) => {
      if (err) return done(err, undefined);
      const underflow = findUnderflow(text);
      if (underflow !== undefined) {
        const shown = underflow.length > 40 ? `${underflow.slice(0, 20)}...${underflow.slice(-12)}` : underflow;
        return done(
          ERRORS.validation([
            {
              path: 'body',
              message: `number ${shown} is below the smallest double (about 5e-324) and would be stored as 0`,
            },
          ]),
          undefined,
        );
      }
      done(null, value);
    });
  });
  // Credentials are checked where they are read, in onRequest hooks of the routes' scopes: this one runs before them.
  app.addHook('onRequest', (request, _reply, done) => {
    const problem = basicCredentialsProblem(request.headers.authorization);
    done(problem ? ERRORS.validation([problem]) : undefined);
  });
  // A callback hook, not an async one: it runs on every request, and costs no promise.
  app.addHook('preValidation', (request, _reply, done) => {
    const problem = checkRequest(request);
    done(problem ? ERRORS.validation([problem]) : undefined);
  });
}
