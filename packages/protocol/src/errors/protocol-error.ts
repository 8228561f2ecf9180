import { hasMarker, RelaxError } from "@relax/chat";
import { type AgentStatusCode, agentStatusRow } from "./status-table";

const name = "ProtocolError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * The options of a {@link ProtocolError}: either a code of `STATUS_TABLE` (its status, type and
 * retryability come from the table), or a status of the thrower's choice with any code.
 */
export type ProtocolErrorOptions = {
  message: string;
  /** OpenAI error `type`. @default the code's row of `STATUS_TABLE`, else from the status */
  type?: string;
  /** The request parameter at fault. @default null */
  param?: string | null;
  /** Whether a client retry can help (sets `x-should-retry`). @default the code's row when `status` is omitted, else false */
  retryable?: boolean;
  cause?: unknown;
} & (
  | { /** A code of `STATUS_TABLE`, whose row gives the status. */ code: AgentStatusCode; status?: undefined }
  | { /** HTTP status, 400–599. */ status: number; code?: string | null }
);

/**
 * An error the embedding server throws (from `generate` or `authenticate`) to answer with a code of the
 * status table (`new ProtocolError({ code: "session_discarded", message: "…" })`, 404) or a status of its
 * choice (`new ProtocolError({ status: 503, code: "engine_unavailable", message: "…" })`).
 * `toErrorResponse` renders it in the request's protocol.
 *
 * @throws RangeError when `status` is not an integer in 400..599.
 */
export class ProtocolError extends RelaxError {
  readonly [symbol] = true;
  /** HTTP status, 400–599. */
  readonly status: number;
  /** OpenAI error `type`; defaults from the code's row, else from the status (`invalid_request_error`, `not_found_error`, …). */
  readonly type: string;
  /** OpenAI error `code`, or `null`. */
  readonly code: string | null;
  /** The request parameter at fault, or `null`. */
  readonly param: string | null;
  /** Whether a client retry can help (sets `x-should-retry`). @default false */
  readonly retryable: boolean;

  constructor(options: ProtocolErrorOptions) {
    const { message, type, param = null, cause } = options;
    super({ name, message, cause });
    const row = agentStatusRow(options.code);
    const status = options.status ?? row?.status;
    if (status === undefined || !Number.isInteger(status) || status < 400 || status > 599) {
      throw new RangeError(`ProtocolError status must be an integer in 400..599, got ${status}`);
    }
    this.status = status;
    this.type =
      type ?? (row !== undefined && row.status === status ? row.agent.type : defaultErrorType(status));
    this.code = options.code ?? null;
    this.param = param;
    this.retryable =
      options.retryable ?? (options.status === undefined && row !== undefined ? row.retryable : false);
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
