import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { ERRORS } from '../errors/error-catalogue.js';

/** Where the console is served; every file of its build is below it. */
export const CONSOLE_PREFIX = '/console/';

/**
 * The console's own build (console/dist), found from this file: src/platform/http/ (tests) and dist/platform/http/
 * (the built service) are both three levels below the project's root.
 */
export const DEFAULT_CONSOLE_DIR = resolve(import.meta.dirname, '../../../console/dist');

/**
 * The console's pages run only the scripts and styles of its own build: no inline script, no eval, nothing from
 * another origin, never inside a frame. Inline styles are allowed: CodeMirror (the item editor) writes its theme
 * into `<style>` elements at run time; a style cannot run code.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Vite writes only content-hashed files into assets/: the name changes with the content, so a year is safe. */
const HASHED = /\/assets\/[^/]+$/;

function secure(reply: FastifyReply): void {
  reply.header('content-security-policy', CONSOLE_CSP);
  reply.header('x-frame-options', 'DENY');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'same-origin');
}

export interface ConsoleOptions {
  /** The built console's folder (index.html, assets/); absent or missing: /console/ answers 503. */
  dir: string;
}

/**
 * Serves the built console at /console/: pre-compressed files (brotli, gzip, chosen by Accept-Encoding), hashed assets
 * cached for a year, index.html revalidated on every load, and the security headers on every answer. The console uses
 * hash routes (`/console/#/stores/orders`), so a deep link reloads index.html and needs no fallback route. None of
 * these routes is in the OpenAPI document: they are files, not the API.
 */
export async function consolePlugin(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  const dir = opts.dir;
  app.addHook('onRequest', async (request, reply) => {
    if (request.url === '/console' || request.url.startsWith(CONSOLE_PREFIX)) secure(reply);
  });
  app.get('/console', { schema: { hide: true } }, (_request, reply) => reply.redirect(CONSOLE_PREFIX, 301));

  if (!existsSync(join(dir, 'index.html'))) {
    app.log.warn({ dir }, 'console: not built (no index.html); /console/ answers 503. Run npm run build');
    const unavailable = async () => {
      throw ERRORS.serviceUnavailable('The console was not built: run npm run build (or npm run build -w console)');
    };
    app.get(CONSOLE_PREFIX, { schema: { hide: true } }, unavailable);
    app.get(`${CONSOLE_PREFIX}*`, { schema: { hide: true } }, unavailable);
    return;
  }

  await app.register(fastifyStatic, {
    root: dir,
    prefix: CONSOLE_PREFIX,
    preCompressed: true,
    index: ['index.html'],
    redirect: false,
    // Files are listed once at start (a build replaces the folder; restart to serve a new build): no file-system
    // lookup for a path that is not a file of the build.
    wildcard: false,
    schemaHide: true,
    cacheControl: false,
    dotfiles: 'deny',
    setHeaders: (res, path) => {
      // Every file has compressed copies: a cache keeps one answer per encoding, also of the plain one.
      res.setHeader('vary', 'accept-encoding');
      res.setHeader(
        'cache-control',
        HASHED.test(path.replaceAll('\\', '/')) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
}
