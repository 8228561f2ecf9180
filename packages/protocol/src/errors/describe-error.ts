import { hasMarker } from "@relax/chat";
import type { Protocol } from "../shared/protocol";
import { type ErrorFields, findErrorStatusEntry, redactUrls } from "./error-status-table";
import { defaultErrorType, type ProtocolError } from "./protocol-error";

/** Everything a protocol needs to render an error, in one protocol-neutral shape. */
export interface ErrorDescriptor {
  /** HTTP status (for an in-stream error: the status it would have had). */
  status: number;
  /** OpenAI error `type`. */
  type: string;
  /** OpenAI error `code`. */
  code: string | null;
  /** The request parameter at fault. */
  param: string | null;
  message: string;
  /** Whether a client retry can help; `false` sends `x-should-retry: false`. */
  retryable: boolean;
  /** Seconds to wait before a retry (`retry-after` header), when known; only on a retryable error. */
  retryAfterSeconds?: number;
}

/**
 * Describes any thrown value as an {@link ErrorDescriptor} by the one table, `ERROR_STATUS_TABLE`: a
 * `ProtocolError` keeps its own status, type, code and param; a Relax error takes its row (matched by its
 * global marker); an `AbortError` is 499 `client_disconnect`; anything else is 500 `internal_error`.
 * Messages never carry URLs (the engine's address stays in logs and `cause`).
 *
 * @param protocol - when given, a canonical `param` is written in that protocol's terms (`messages` →
 *   `input` for Responses).
 */
export function describeError(error: unknown, protocol?: Protocol): ErrorDescriptor {
  if (typeof error === "object" && error !== null) {
    if (hasMarker(error, "relax.error.ProtocolError")) {
      const e = error as ProtocolError;
      return {
        status: e.status,
        type: e.type,
        code: e.code,
        param: e.param,
        message: redactUrls(e.message),
        retryable: e.retryable,
      };
    }
    const found = findErrorStatusEntry(error);
    if (found) {
      const fields = error as ErrorFields;
      const { entry } = found;
      const status = typeof entry.status === "number" ? entry.status : entry.status(fields);
      const param = entry.param?.(fields) ?? null;
      const retryable =
        typeof entry.retryable === "function" ? entry.retryable(fields) : (entry.retryable ?? false);
      const retryAfter = retryable ? entry.retryAfter?.(fields) : undefined;
      return {
        status,
        type: entry.type ?? defaultErrorType(status),
        code: typeof entry.code === "string" ? entry.code : entry.code(fields),
        param: protocol === undefined ? param : protocolParam(param, protocol),
        message: redactUrls(entry.message ? entry.message(fields) : String(fields.message ?? "")),
        retryable,
        ...(retryAfter !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0
          ? { retryAfterSeconds: retryAfter }
          : {}),
      };
    }
    if ((error as { name?: unknown }).name === "AbortError") return clientDisconnect();
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    status: 500,
    type: "server_error",
    code: "internal_error",
    param: null,
    message: `internal error: ${redactUrls(message)}`,
    retryable: false,
  };
}

/** The descriptor of a request whose client went away (HTTP 499, nginx's "client closed request"). */
export function clientDisconnect(): ErrorDescriptor {
  return {
    status: 499,
    type: "client_disconnect",
    code: "client_disconnect",
    param: null,
    message: "client disconnected before the response was complete",
    retryable: false,
  };
}

/** A canonical parameter name in the protocol's own terms. */
function protocolParam(param: string | null, protocol: Protocol): string | null {
  if (param === null || protocol !== "responses") return param;
  if (param === "messages") return "input";
  if (param === "max_tokens") return "max_output_tokens";
  return param;
}
