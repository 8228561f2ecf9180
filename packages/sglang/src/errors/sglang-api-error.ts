import { hasMarker } from "./has-marker";
import { SglangError } from "./sglang-error";

const marker = "relax.error.SglangApiError";
const symbol = Symbol.for(marker);

/**
 * SGLang (or a router in front of it) answered with a non-2xx status, or reported an error inside a
 * stream. The message reads `<status> <server message>`.
 *
 * Subclasses: `ContextLengthError` (400 for a prompt or budget over the context length) and
 * `SglangServerError` (5xx).
 */
export class SglangApiError extends SglangError {
  readonly [symbol] = true;
  override readonly name: string = "SglangApiError";
  /** HTTP status of the response (for an error event inside a 200 stream: the status it carried, else 200). */
  readonly status: number;
  /** The response body: parsed JSON when it was JSON, else the raw text (possibly empty). */
  readonly body: unknown;
  /** The URL that was called. */
  readonly url: string;
  /** The server's own message, extracted from `body` (`error.message`, `message`, `detail` or the text). */
  readonly serverMessage: string;
  /** Seconds the server asked to wait before a retry (its `Retry-After` header), when it sent one. */
  readonly retryAfterSeconds: number | undefined;

  constructor({
    status,
    body,
    url,
    serverMessage = extractServerMessage(body),
    retryAfterSeconds,
    cause,
  }: {
    status: number;
    body: unknown;
    url: string;
    serverMessage?: string | undefined;
    retryAfterSeconds?: number | undefined;
    cause?: unknown;
  }) {
    super({ message: `${status} ${serverMessage || "(empty body)"}`, cause });
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
    this.body = body;
    this.url = url;
    this.serverMessage = serverMessage;
  }

  /** 408 and 429 are retryable; other 4xx are not. */
  override get isRetryable(): boolean {
    return this.status === 408 || this.status === 429;
  }

  /** True for any `SglangApiError` (including subclasses), from any copy of this package. */
  static override isInstance(error: unknown): error is SglangApiError {
    return hasMarker(error, marker);
  }
}

/**
 * A `Retry-After` header value in seconds: delta-seconds (`"3"`) or an HTTP date (seconds from `now`,
 * at least 0); `undefined` when absent or unreadable.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * The human-readable message of an SGLang error body. SGLang answers `{"error":{"message":...}}`
 * (newer builds add `type`, `code`, `retryable`); its OpenAI layer answers `{"message":...}`; FastAPI
 * validation answers `{"detail":...}`; some control routes answer plain text.
 */
export function extractServerMessage(body: unknown): string {
  if (typeof body === "string") return body.trim();
  if (typeof body !== "object" || body === null) return body == null ? "" : String(body);
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (typeof error === "string") return error;
  if (typeof error === "object" && error !== null) {
    const message = (error as Record<string, unknown>).message;
    if (typeof message === "string") return message;
  }
  if (typeof record.message === "string") return record.message;
  if (typeof record.detail === "string") return record.detail;
  if (record.detail !== undefined) return JSON.stringify(record.detail);
  return JSON.stringify(body);
}
