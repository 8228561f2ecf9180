import { hasMarker } from "@relax/chat";
import { type AgentStatusCode, STATUS_TABLE } from "./status-table";

/** An error as the table sees it: any object, read by field name (the table imports no error class). */
export type ErrorFields = Record<PropertyKey, unknown> & { message?: unknown };

/**
 * How one error class becomes an HTTP answer: its error `code`, from which {@link STATUS_TABLE} gives the
 * status, the `type` of each protocol and whether a retry can help; plus what only the error knows (the
 * parameter at fault, the message, the engine's `Retry-After`).
 */
export interface ErrorStatusEntry {
  /** The error code (a row of `STATUS_TABLE`), or a function of the error's fields (e.g. a field error that is only sometimes the client's). */
  code: AgentStatusCode | ((error: ErrorFields) => AgentStatusCode);
  /**
   * The request parameter at fault, in canonical terms (`messages`, `tools`, `max_tokens`); the renderer
   * translates it per protocol (`messages` is `input` for Responses). @default null
   */
  param?: (error: ErrorFields) => string | null;
  /** The agent-facing message. @default the error's own message (engine URLs removed) */
  message?: (error: ErrorFields) => string;
  /** Seconds a client should wait before retrying (`retry-after`), when known; read only for a retryable code. @default none */
  retryAfter?: (error: ErrorFields) => number | undefined;
}

/**
 * The error → code table of Relax, keyed by error name, in the shape of tRPC's `getHTTPStatusCode`
 * table; the code's row of {@link STATUS_TABLE} (the one status table) gives the status. An error matches
 * a row when it carries `Symbol.for("relax.error.<Name>")`, the marker every Relax package sets, so
 * errors of `@relax/chat`, `@relax/forest`, `@relax/sglang`, `@relax/launcher` and `@relax/runtime` match
 * without this package importing them. Rows are tried in order (subclasses before their bases:
 * `ContextLengthError` before `SglangApiError`); an error matching no row is a bug and answers 500
 * `internal_error`.
 *
 * Rules: a client mistake is a 4xx (400 with the parameter when known, 404 for a session that is gone);
 * the engine unreachable, too slow or answering 503 is 503 (retryable); an engine 429 is 429 (retryable);
 * both carry the engine's `Retry-After` when it sent one; any other engine failure is 502; a gateway bug
 * or misconfiguration is 500. Engine URLs never reach the agent (they stay in logs and `cause`).
 */
export const ERROR_STATUS_TABLE = {
  // Request conversion and canonicalisation (`@relax/chat`, `@relax/protocol`).
  CanonicalizationError: {
    code: "invalid_request_error",
    param: (error) => stringField(error, "param"),
  },
  // An image that cannot be used: undecodable, unfetchable, refused by the processor or the template.
  MediaInputError: {
    code: "invalid_request_error",
    param: (error) => topLevelParam(stringField(error, "path")) ?? "messages",
  },
  // Forest `beginTurn` / `commitResponse` (`@relax/forest`).
  ForestInputError: {
    code: (error) => (forestRequestParam(error) === null ? "internal_error" : "invalid_request_error"),
    param: forestRequestParam,
    message: (error) =>
      forestRequestParam(error) === null ? `internal error: ${messageOf(error)}` : messageOf(error),
  },
  SessionContextLengthError: contextLengthEntry(),
  StateConflictError: { code: "state_conflict" },
  // Chat template, observation delta and parsers (`@relax/chat`).
  ChatTemplateError: {
    code: (error) => (isTemplateRejection(error) ? "invalid_request_error" : "chat_template_error"),
    param: (error) =>
      isTemplateRejection(error) ? (topLevelParam(stringField(error, "path")) ?? "messages") : null,
  },
  ObservationDeltaError: {
    code: "unsupported_conversation",
    param: () => "messages",
  },
  InvalidParserInputError: {
    code: "invalid_request_error",
    param: (error) => topLevelParam(stringField(error, "path")),
  },
  UnknownParserError: { code: "parser_not_configured" },
  TokenizerLoadError: { code: "tokenizer_unavailable" },
  // The SGLang client (`@relax/sglang`): subclasses first.
  ContextLengthError: contextLengthEntry(),
  SglangConnectionError: {
    code: "backend_unavailable",
    message: (error) => `the inference backend is unavailable: connection failed${causeCode(error)}`,
  },
  SglangTimeoutError: {
    code: "backend_unavailable",
    message: (error) =>
      `the inference backend is unavailable: no answer within ${numberField(error, "timeoutMs") ?? "?"} ms`,
  },
  SglangAbortError: {
    code: "generation_aborted",
    message: () => "the inference backend aborted the generation",
  },
  SglangResponseError: {
    code: "backend_error",
    message: (error) =>
      `the inference backend sent an untrusted response: ${stringField(error, "path") ?? "(body)"}: ${stringField(error, "reason") ?? ""}`,
  },
  SglangInvalidArgumentError: {
    code: (error) => (samplingParam(error) === null ? "internal_error" : "invalid_request_error"),
    param: samplingParam,
  },
  // An engine 503 (starting, shutting down, no healthy worker behind a router) is worth a retry; other 5xx not.
  SglangServerError: {
    code: (error) => (numberField(error, "status") === 503 ? "backend_unavailable" : "backend_error"),
    message: (error) =>
      numberField(error, "status") === 503
        ? `the inference backend is unavailable: ${messageOf(error)}`
        : `the inference backend failed: ${messageOf(error)}`,
    retryAfter: (error) => numberField(error, "retryAfterSeconds"),
  },
  // An engine 429 (overloaded) stays a 429, so agents back off as they would for a rate limit.
  SglangApiError: {
    code: (error) => (numberField(error, "status") === 429 ? "backend_overloaded" : "backend_error"),
    message: (error) =>
      numberField(error, "status") === 429
        ? `the inference backend is overloaded: ${messageOf(error)}`
        : `the inference backend failed: ${messageOf(error)}`,
    retryAfter: (error) => numberField(error, "retryAfterSeconds"),
  },
  // The agent-facing service's session errors and the engine check (`@relax/runtime`).
  SessionNotFoundError: {
    code: "session_discarded",
    message: (error) => messageOf(error) || "session not found or already closed",
  },
  GroupDroppedError: { code: "session_discarded" },
  GenerationAbortedError: { code: "generation_aborted" },
  BackendUnavailableError: { code: "backend_unavailable" },
} as const satisfies Record<string, ErrorStatusEntry>;

/** A row name of {@link ERROR_STATUS_TABLE}. */
export type ErrorStatusName = keyof typeof ERROR_STATUS_TABLE;

/** The row of the first table name whose marker `error` carries, if any. */
export function findErrorStatusEntry(
  error: unknown,
): { name: ErrorStatusName; entry: ErrorStatusEntry } | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  for (const [name, entry] of Object.entries(ERROR_STATUS_TABLE) as Array<
    [ErrorStatusName, ErrorStatusEntry]
  >) {
    if ((error as Record<symbol, unknown>)[Symbol.for(`relax.error.${name}`)] === true)
      return { name, entry };
  }
  return undefined;
}

/** The error code a row gives an error (a row of `STATUS_TABLE`). */
export function entryCode(entry: ErrorStatusEntry, error: ErrorFields): AgentStatusCode {
  return typeof entry.code === "string" ? entry.code : entry.code(error);
}

/**
 * The HTTP status of any thrown value, by the tables (tRPC's `getHTTPStatusCode` for Relax errors): a
 * `ProtocolError` keeps its own status, a Relax error the status of its row's code in `STATUS_TABLE`,
 * an `AbortError` is 499 (`client_disconnect`), an unknown error 500 (`internal_error`).
 */
export function getHTTPStatusCode(error: unknown): number {
  if (typeof error === "object" && error !== null) {
    if (hasMarker(error, "relax.error.ProtocolError")) {
      return (error as { status: number }).status;
    }
    const found = findErrorStatusEntry(error);
    if (found) return STATUS_TABLE[entryCode(found.entry, error as ErrorFields)].status;
    if ((error as { name?: unknown }).name === "AbortError") return STATUS_TABLE.client_disconnect.status;
  }
  return STATUS_TABLE.internal_error.status;
}

const engineUrl = /\bhttps?:\/\/[^\s"'`<>)]+/g;

/** Removes URLs (the engine's internal address) from an agent-facing message. */
export function redactUrls(message: string): string {
  return message.replace(engineUrl, "<engine>");
}

function contextLengthEntry(): ErrorStatusEntry {
  return {
    code: "context_length_exceeded",
    param: () => "messages",
    message: contextLengthMessage,
  };
}

/** OpenAI's wording of a context-length error, from the error's numbers when present. */
function contextLengthMessage(error: ErrorFields): string {
  const max = numberField(error, "maxContextLength");
  const prompt = numberField(error, "promptTokens");
  const requested = numberField(error, "requestedTokens");
  if (max === undefined || prompt === undefined) return messageOf(error);
  if (requested !== undefined) {
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

/** `state.messages[2].content` → `messages`; `maxNewTokens` → `max_tokens`; other forest paths → null. */
function forestRequestParam(error: ErrorFields): string | null {
  const path = stringField(error, "path") ?? "";
  if (path === "maxNewTokens") return "max_tokens";
  if (!path.startsWith("state.")) return null;
  const param = topLevelParam(path.slice("state.".length));
  return param === "chatTemplateKwargs" ? "chat_template_kwargs" : param;
}

/** A template that rejects the conversation or cannot take its input is the request's problem. */
function isTemplateRejection(error: ErrorFields): boolean {
  return error.reason === "invalid_input" || error.reason === "raise_exception";
}

/** `sampling.stop[1]` → `stop`, `sampling.seed` → `seed`: the request's own sampling fields. */
function samplingParam(error: ErrorFields): string | null {
  const field = stringField(error, "field") ?? "";
  if (field.startsWith("sampling.stop")) return "stop";
  if (field === "sampling.seed") return "seed";
  return null;
}

function topLevelParam(path: string | null): string | null {
  if (path === null || path === "") return null;
  return path.split(/[.[]/, 1)[0] || null;
}

/** ` (ECONNREFUSED)` from a connection error's message, or `""`. */
function causeCode(error: ErrorFields): string {
  const match = /\(([A-Z][A-Z0-9_]+)\)$/.exec(messageOf(error));
  return match ? ` (${match[1]})` : "";
}

function stringField(error: ErrorFields, key: string): string | null {
  const value = error[key];
  return typeof value === "string" ? value : null;
}

function numberField(error: ErrorFields, key: string): number | undefined {
  const value = error[key];
  return typeof value === "number" ? value : undefined;
}

function messageOf(error: ErrorFields): string {
  return typeof error.message === "string" ? error.message : "";
}
