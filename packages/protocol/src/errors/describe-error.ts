import type { ProtocolError } from "./protocol-error";

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
}

type Describe = (error: Record<PropertyKey, unknown> & Error) => ErrorDescriptor;

/**
 * The one table that turns errors into statuses, keyed by error name. An error matches an entry when it
 * carries the global marker `Symbol.for("relax.error.<Name>")` (as `isInstance` checks in every Relax
 * package), so errors from `@relax/chat`, `@relax/sglang` or the gateway match without this package
 * importing them. Order matters: the first match wins.
 */
const ERROR_TABLE: ReadonlyArray<readonly [name: string, describe: Describe]> = [
  [
    "ProtocolError",
    (error) => {
      const e = error as unknown as ProtocolError;
      return {
        status: e.status,
        type: e.type,
        code: e.code,
        param: e.param,
        message: e.message,
        retryable: e.retryable,
      };
    },
  ],
  [
    "CanonicalizationError",
    (error) => ({
      status: 400,
      type: "invalid_request_error",
      code: "invalid_request_error",
      param: typeof error.param === "string" ? error.param : null,
      message: error.message,
      retryable: false,
    }),
  ],
  [
    "ContextLengthError",
    (error) => ({
      status: 400,
      type: "invalid_request_error",
      code: "context_length_exceeded",
      param: "messages",
      message: contextLengthMessage(error),
      retryable: false,
    }),
  ],
  [
    "SessionNotFoundError",
    (error) => ({
      status: 404,
      type: "not_found_error",
      code: "session_discarded",
      param: null,
      message: error.message || "session not found or already closed",
      retryable: false,
    }),
  ],
];

/**
 * Describes any thrown value as an {@link ErrorDescriptor}: a known Relax error by the table above, an
 * `AbortError` as 499 `client_disconnect`, anything else as 500 `internal_error`.
 */
export function describeError(error: unknown): ErrorDescriptor {
  if (typeof error === "object" && error !== null) {
    for (const [name, describe] of ERROR_TABLE) {
      if (Symbol.for(`relax.error.${name}`) in error) {
        return describe(error as Record<PropertyKey, unknown> & Error);
      }
    }
    if ((error as { name?: unknown }).name === "AbortError") return clientDisconnect();
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    status: 500,
    type: "server_error",
    code: "internal_error",
    param: null,
    message: `internal error: ${message}`,
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

/** OpenAI's wording of a context-length error, from `ContextLengthError`'s numbers when present. */
function contextLengthMessage(error: Record<PropertyKey, unknown> & Error): string {
  const max = error.maxContextLength;
  const prompt = error.promptTokens;
  const requested = error.requestedTokens;
  if (typeof max !== "number" || typeof prompt !== "number") return error.message;
  if (typeof requested === "number") {
    return (
      `This model's maximum context length is ${max} tokens. However, you requested ${prompt + requested} ` +
      `tokens (${prompt} in the messages, ${requested} in the completion). Please reduce the length of ` +
      "the messages or completion."
    );
  }
  return (
    `This model's maximum context length is ${max} tokens. However, your messages resulted in ${prompt} ` +
    "tokens. Please reduce the length of the messages."
  );
}
