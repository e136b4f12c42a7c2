// The numbers a data management call may carry (issue 40: every start, limit and id bounded; 400 beyond, never a 500
// from the database): JSON numbers such as 1e20 are integers to JavaScript but out of range for a bigint column or
// an OFFSET.
import { Type } from '@sinclair/typebox';

/** An id of a template or asset: a non-negative integer the service can have handed out (a safe integer). */
export const IdSchema = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

/** Paging start and limit: 0 to 2^31-1 (a limit above the method's page size reads that page size). */
export const PagingSchema = Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 });
