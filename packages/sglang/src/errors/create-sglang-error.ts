import { ContextLengthError } from "./context-length-error";
import { parseContextLengthMessage } from "./parse-context-length-message";
import { extractServerMessage, SglangApiError } from "./sglang-api-error";
import { SglangConnectionError } from "./sglang-connection-error";
import type { SglangError } from "./sglang-error";
import { SglangServerError } from "./sglang-server-error";

/**
 * Picks the error class for a failed SGLang call (one factory, in the style of `APIError.generate`):
 * - no `status` (no response) → `SglangConnectionError`;
 * - a 4xx (or an error event inside a stream) whose message is one of SGLang's context-length
 *   messages → `ContextLengthError` with the numbers;
 * - 5xx → `SglangServerError`;
 * - anything else → `SglangApiError`.
 *
 * @param body parsed JSON when the body was JSON, else the raw text.
 */
export function createSglangError({
  url,
  status,
  body,
  rid,
  retryAfterSeconds,
  cause,
}: {
  url: string;
  status?: number;
  body?: unknown;
  rid?: string | undefined;
  /** The response's `Retry-After`, in seconds (see `parseRetryAfter`). */
  retryAfterSeconds?: number | undefined;
  cause?: unknown;
}): SglangError {
  if (status === undefined) return new SglangConnectionError({ url, rid, cause });
  const serverMessage = extractServerMessage(body);
  if (status < 500) {
    const numbers = parseContextLengthMessage(serverMessage);
    if (numbers) return new ContextLengthError({ status, body, url, serverMessage, numbers, cause });
  }
  if (status >= 500)
    return new SglangServerError({ status, body, url, serverMessage, retryAfterSeconds, cause });
  return new SglangApiError({ status, body, url, serverMessage, retryAfterSeconds, cause });
}
