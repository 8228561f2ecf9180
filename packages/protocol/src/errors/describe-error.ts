import { hasMarker } from "@relax/chat";
import type { Protocol } from "../shared/protocol";
import { type ErrorFields, entryCode, findErrorStatusEntry, redactUrls } from "./error-status-table";
import type { ProtocolError } from "./protocol-error";
import { type AgentStatusCode, STATUS_TABLE } from "./status-table";

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
 * Describes any thrown value as an {@link ErrorDescriptor}: a `ProtocolError` keeps its own status, type,
 * code and param; a Relax error takes its code from `ERROR_STATUS_TABLE` (matched by its global marker)
 * and that code's status, type and retryability from `STATUS_TABLE`; an `AbortError` is 499
 * `client_disconnect`; anything else is 500 `internal_error`.
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
      const param = entry.param?.(fields) ?? null;
      const described = describeCode(
        entryCode(entry, fields),
        redactUrls(entry.message ? entry.message(fields) : String(fields.message ?? "")),
        protocol === undefined ? param : protocolParam(param, protocol),
      );
      const retryAfter = described.retryable ? entry.retryAfter?.(fields) : undefined;
      return retryAfter !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0
        ? { ...described, retryAfterSeconds: retryAfter }
        : described;
    }
    if ((error as { name?: unknown }).name === "AbortError") return clientDisconnect();
  }
  const message = error instanceof Error ? error.message : String(error);
  return describeCode("internal_error", `internal error: ${redactUrls(message)}`);
}

/**
 * The descriptor of an agent-facing error code with its message: status, OpenAI `type` and
 * retryability from the code's row of `STATUS_TABLE`.
 *
 * @param param - the request parameter at fault, already in the protocol's terms. @default null
 */
export function describeCode(
  code: AgentStatusCode,
  message: string,
  param: string | null = null,
): ErrorDescriptor {
  const row = STATUS_TABLE[code];
  return { status: row.status, type: row.agent.type, code, param, message, retryable: row.retryable };
}

/** The descriptor of a request whose client went away (HTTP 499, nginx's "client closed request"). */
export function clientDisconnect(): ErrorDescriptor {
  return describeCode("client_disconnect", "client disconnected before the response was complete");
}

/** A canonical parameter name in the protocol's own terms. */
function protocolParam(param: string | null, protocol: Protocol): string | null {
  if (param === null || protocol !== "responses") return param;
  if (param === "messages") return "input";
  if (param === "max_tokens") return "max_output_tokens";
  return param;
}
