import { randomUUID } from "node:crypto";

/** Length of every id made by `createRequestId`. */
export const REQUEST_ID_LENGTH = 32;

/**
 * A fresh request id: 32 lowercase hex characters (a v4 UUID without dashes).
 *
 * Fixed length matters: SGLang's `/abort_request {"rid": X}` aborts every request whose rid *starts with*
 * X, so with variable-length ids aborting `req_1` would also abort `req_10`…`req_19`. Two distinct ids of
 * equal length are never prefixes of each other.
 *
 * @see SGLang scheduler `abort_request` (`req.rid.startswith(recv_req.rid)`).
 */
export function createRequestId(): string {
  return randomUUID().replaceAll("-", "");
}

/**
 * Whether aborting `rid` would also hit `other` (SGLang's prefix match), i.e. one is a prefix of the other
 * and they differ.
 */
export function requestIdsCollide(rid: string, other: string): boolean {
  return rid !== other && (other.startsWith(rid) || rid.startsWith(other));
}
