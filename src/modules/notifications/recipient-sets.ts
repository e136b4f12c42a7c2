import { createHash } from 'node:crypto';
/**
 * A notification's recipient set: its kind and its names, in any order. Every notification belongs to exactly one,
 * so a caller's total is the sum of the kept counts of the sets that name it, each set counted once however many of
 * the caller's names it holds (what DISTINCT did over the recipient rows). Hashed: a set may hold 1,000 names of 256
 * characters, more than an index key may.
 */
export function recipientSetKey(n: { recipients: string[]; recipientsType: string }): string {
  const names = [...new Set(n.recipients)].sort();
  return createHash('sha256')
    .update(JSON.stringify([n.recipientsType, ...names]))
    .digest('base64url');
}
