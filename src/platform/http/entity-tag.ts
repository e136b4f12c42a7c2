// Conditional GETs: an answer's entity tag, derived from what the answer depends on (a change count read before the
// answer's rows, the caller's reader key, the normalised request), and `If-None-Match` answered with 304 before the
// rows are read. Tags are weak (W/"..."): they name the state an answer was read from, not its bytes (docs/api.md).
import { hash } from 'node:crypto';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendJsonText } from './json-text.js';

/**
 * Raised when what an answer means changes for the same state (its format, what the tag's parts mean): every tag
 * issued before then stops matching.
 */
const TAG_FORMAT = '1';

/** Caches may keep the answer for this caller only, and must ask again (If-None-Match) before each reuse. */
export const CONDITIONAL_CACHE_CONTROL = 'private, no-cache';

/** The weak entity tag of the parts (text without NUL): 128 bits of their SHA-256, base64url. */
export function entityTag(parts: readonly string[]): string {
  const digest = hash('sha256', `${TAG_FORMAT}\u0000${parts.join('\u0000')}`, 'base64url');
  return `W/"${digest.slice(0, 22)}"`;
}

/**
 * Whether `If-None-Match` names the tag (weak comparison, RFC 9110 13.1.2: `W/` is ignored on either side). `*` is no
 * match here: whether the resource exists is known only after reading it, and a full answer is always correct.
 */
export function noneMatchHits(header: string | string[] | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const opaque = tag.startsWith('W/') ? tag.slice(2) : tag;
  for (const list of Array.isArray(header) ? header : [header]) {
    if (!list.includes(opaque)) continue;
    for (const raw of list.split(',')) {
      const item = raw.trim();
      if ((item.startsWith('W/') ? item.slice(2) : item) === opaque) return true;
    }
  }
  return false;
}

/**
 * Answers a conditional GET: 304 without a body where `If-None-Match` names `tag`, else the JSON text `read` answers,
 * with the tag. `tag` must have been computed from a change count read before `read` runs (then a tag is never newer
 * than the answer it goes with, so a 304 never confirms an answer that a change made stale). Errors of `read` go to
 * the error handler without the tag.
 */
export async function sendConditional(
  request: FastifyRequest,
  reply: FastifyReply,
  tag: string,
  read: () => Promise<string>,
): Promise<FastifyReply> {
  if (noneMatchHits(request.headers['if-none-match'], tag))
    return reply.code(304).header('etag', tag).header('cache-control', CONDITIONAL_CACHE_CONTROL).send();
  const text = await read();
  reply.header('etag', tag).header('cache-control', CONDITIONAL_CACHE_CONTROL);
  return sendJsonText(reply, text);
}

/** A conditional answer decided by a service: the tag, and the JSON text unless `If-None-Match` named the tag (304). */
export interface TaggedText {
  tag: string;
  text?: string;
}

/** Sends a service's conditional answer: the JSON text with its tag, or 304 without a body. */
export function sendTagged(reply: FastifyReply, { tag, text }: TaggedText): FastifyReply {
  reply.header('etag', tag).header('cache-control', CONDITIONAL_CACHE_CONTROL);
  return text === undefined ? reply.code(304).send() : sendJsonText(reply, text);
}

const TAG_HEADERS = {
  etag: Type.String({
    description: 'Weak entity tag of the answer for this caller: send it as If-None-Match to get 304 while it holds',
    examples: ['W/"q2Vb0Xc1bWJ3Tn8hZk4tGg"'],
  }),
  'cache-control': Type.String({ description: 'private, no-cache', examples: [CONDITIONAL_CACHE_CONTROL] }),
};

/** The success answer of a conditional GET for the document: the schema with the ETag and Cache-Control headers. */
export function taggedAnswer<T extends TSchema>(schema: T): T {
  return { ...schema, headers: TAG_HEADERS };
}

/** The 304 answer of a conditional GET for the document: no body, the tag again. */
export const NOT_MODIFIED = {
  304: {
    type: 'null',
    description: 'Not modified: If-None-Match names the current tag (no body; the answer held is still the answer)',
    headers: TAG_HEADERS,
  },
} as const;
