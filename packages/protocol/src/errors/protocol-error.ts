import { hasMarker, RelaxError } from "@relax/chat";

const name = "ProtocolError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * An error the embedding server throws (from `generate` or `authenticate`) to answer with a status of
 * its choice, e.g. `new ProtocolError({ status: 503, code: "engine_unavailable", message: "…" })`.
 * `toErrorResponse` renders it in the request's protocol; nothing else picks a status.
 */
export class ProtocolError extends RelaxError {
  readonly [symbol] = true;
  /** HTTP status, 400–599. */
  readonly status: number;
  /** OpenAI error `type`; defaults from the status (`invalid_request_error`, `not_found_error`, …). */
  readonly type: string;
  /** OpenAI error `code`, or `null`. */
  readonly code: string | null;
  /** The request parameter at fault, or `null`. */
  readonly param: string | null;
  /** Whether a client retry can help (sets `x-should-retry`). @default false */
  readonly retryable: boolean;

  constructor({
    status,
    message,
    type,
    code = null,
    param = null,
    retryable = false,
    cause,
  }: {
    status: number;
    message: string;
    type?: string;
    code?: string | null;
    param?: string | null;
    retryable?: boolean;
    cause?: unknown;
  }) {
    super({ name, message, cause });
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new RangeError(`ProtocolError status must be an integer in 400..599, got ${status}`);
    }
    this.status = status;
    this.type = type ?? defaultErrorType(status);
    this.code = code;
    this.param = param;
    this.retryable = retryable;
  }

  /** True for any `ProtocolError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is ProtocolError {
    return hasMarker(error, marker);
  }
}

/** The OpenAI-style error `type` for a status. */
export function defaultErrorType(status: number): string {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 405:
      return "invalid_request_error";
    case 429:
      return "rate_limit_error";
    case 499:
      return "client_disconnect";
    default:
      return status >= 500 ? "server_error" : "invalid_request_error";
  }
}
