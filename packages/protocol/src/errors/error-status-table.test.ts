import {
  CanonicalizationError,
  ChatTemplateError,
  InvalidParserInputError,
  MediaInputError,
  ObservationDeltaError,
  TokenizerLoadError,
  UnknownParserError,
} from "@relax/chat";
import { describe, expect, it } from "vitest";
import { describeError } from "./describe-error";
import { ERROR_STATUS_TABLE, type ErrorStatusName, getHTTPStatusCode } from "./error-status-table";
import { ProtocolError } from "./protocol-error";

const engine = "http://127.0.0.1:30123";

/** An error of a package this one does not import, as its copy would build it: only the markers matter. */
function foreign(names: string[], fields: Record<string, unknown>): Error {
  const error = Object.assign(new Error(String(fields.message ?? "")), fields);
  Object.defineProperty(error, Symbol.for("relax.error"), { value: true });
  for (const name of names) Object.defineProperty(error, Symbol.for(`relax.error.${name}`), { value: true });
  return error;
}

interface Row {
  row: ErrorStatusName;
  title: string;
  error: unknown;
  status: number;
  code: string;
  param: string | null;
  message: string;
  retryable?: boolean;
  retryAfterSeconds?: number;
  type?: string;
}

const rows: Row[] = [
  {
    row: "CanonicalizationError",
    title: "a bad request field",
    error: new CanonicalizationError({ path: "messages[1].content", reason: "must be a string" }),
    status: 400,
    code: "invalid_request_error",
    param: "messages",
    message: "messages[1].content: must be a string",
  },
  {
    row: "ForestInputError",
    title: "a re-sent committed reply",
    error: foreign(["FieldError", "ForestInputError"], {
      path: "state.messages",
      reason: "ends with the committed response h",
      message: "state.messages: ends with the committed response h",
    }),
    status: 400,
    code: "invalid_request_error",
    param: "messages",
    message: "state.messages: ends with the committed response h",
  },
  {
    row: "ForestInputError",
    title: "bad engine output handed to the forest (a bug)",
    error: foreign(["FieldError", "ForestInputError"], { path: "outputIds", message: "outputIds: empty" }),
    status: 500,
    code: "internal_error",
    param: null,
    message: "internal error: outputIds: empty",
  },
  {
    row: "SessionContextLengthError",
    title: "the session's context budget",
    error: foreign(["SessionContextLengthError"], {
      maxContextLength: 64,
      promptTokens: 70,
      message: "context length exceeded in session s",
    }),
    status: 400,
    code: "context_length_exceeded",
    param: "messages",
    message:
      "This model's maximum context length is 64 tokens. However, your messages resulted in 70 tokens. Please reduce the length of the messages.",
  },
  {
    row: "StateConflictError",
    title: "a commit onto an observation's state",
    error: foreign(["StateConflictError"], { message: "state h is already committed as observation" }),
    status: 409,
    code: "state_conflict",
    param: null,
    message: "state h is already committed as observation",
  },
  {
    row: "ChatTemplateError",
    title: "an image part on a text-only template",
    error: new ChatTemplateError({
      reason: "invalid_input",
      path: "messages[1].content[0]",
      message: "image parts need a template that takes content lists",
    }),
    status: 400,
    code: "invalid_request_error",
    param: "messages",
    message: "messages[1].content[0]: image parts need a template that takes content lists",
  },
  {
    row: "ChatTemplateError",
    title: "a broken template (configuration)",
    error: new ChatTemplateError({ reason: "parse", message: "unexpected token" }),
    status: 500,
    code: "chat_template_error",
    param: null,
    message: "unexpected token",
  },
  {
    row: "ObservationDeltaError",
    title: "a conversation the template cannot extend",
    error: new ObservationDeltaError({ reason: "text_not_prefix", message: "rewrites turn 2" }),
    status: 400,
    code: "unsupported_conversation",
    param: "messages",
    message: "observation delta (text_not_prefix): rewrites turn 2",
  },
  {
    row: "InvalidParserInputError",
    title: "a tool the parser cannot use",
    error: new InvalidParserInputError({ path: "tools[2].function.name", reason: "must be a string" }),
    status: 400,
    code: "invalid_request_error",
    param: "tools",
    message: "tools[2].function.name: must be a string",
  },
  {
    row: "UnknownParserError",
    title: "a misconfigured parser name",
    error: new UnknownParserError({ parserKind: "tool_call", parserName: "x", validNames: ["hermes"] }),
    status: 500,
    code: "parser_not_configured",
    param: null,
    message: 'unknown tool-call parser "x"; valid names: hermes',
  },
  {
    row: "TokenizerLoadError",
    title: "a tokenizer that cannot load",
    error: new TokenizerLoadError({ file: "/m/tokenizer.json", reason: "not_found" }),
    status: 500,
    code: "tokenizer_unavailable",
    param: null,
    message: "/m/tokenizer.json: not found",
  },
  {
    row: "ContextLengthError",
    title: "the engine's context-length 400",
    error: foreign(["SglangError", "SglangApiError", "ContextLengthError"], {
      status: 400,
      url: `${engine}/generate`,
      maxContextLength: 4096,
      promptTokens: 4000,
      requestedTokens: 296,
      message: "400 Requested token count exceeds …",
    }),
    status: 400,
    code: "context_length_exceeded",
    param: "messages",
    message:
      "This model's maximum context length is 4096 tokens. However, you requested 4296 tokens (4000 in the messages, 296 in the completion). Please reduce the length of the messages or completion.",
  },
  {
    row: "SglangConnectionError",
    title: "the engine refusing connections",
    error: foreign(["SglangError", "SglangConnectionError"], {
      url: `${engine}/generate`,
      message: `connection to ${engine}/generate failed (ECONNREFUSED)`,
    }),
    status: 503,
    code: "backend_unavailable",
    param: null,
    message: "the inference backend is unavailable: connection failed (ECONNREFUSED)",
    retryable: true,
  },
  {
    row: "SglangTimeoutError",
    title: "the engine too slow",
    error: foreign(["SglangError", "SglangTimeoutError"], {
      timeoutMs: 5000,
      message: `${engine}/generate did not answer within 5000 ms`,
    }),
    status: 503,
    code: "backend_unavailable",
    param: null,
    message: "the inference backend is unavailable: no answer within 5000 ms",
    retryable: true,
  },
  {
    row: "SglangAbortError",
    title: "the engine dropping an aborted request",
    error: foreign(["SglangError", "SglangAbortError"], { message: "request r was aborted" }),
    status: 503,
    code: "generation_aborted",
    param: null,
    message: "the inference backend aborted the generation",
    retryable: true,
  },
  {
    row: "SglangResponseError",
    title: "an untrusted engine body",
    error: foreign(["SglangError", "SglangResponseError"], {
      path: "meta_info.output_token_logprobs[3]",
      reason: "expected number",
      message: `untrusted response from ${engine}/generate: meta_info.output_token_logprobs[3]: expected number`,
    }),
    status: 502,
    code: "backend_error",
    param: null,
    message:
      "the inference backend sent an untrusted response: meta_info.output_token_logprobs[3]: expected number",
  },
  {
    row: "SglangInvalidArgumentError",
    title: "a request stop sequence the engine client refuses",
    error: foreign(["SglangError", "SglangInvalidArgumentError"], {
      field: "sampling.stop[0]",
      message: "sampling.stop[0]: must be non-empty",
    }),
    status: 400,
    code: "invalid_request_error",
    param: "stop",
    message: "sampling.stop[0]: must be non-empty",
  },
  {
    row: "SglangServerError",
    title: "an engine 500 (not worth a retry)",
    error: foreign(["SglangError", "SglangApiError", "SglangServerError"], {
      status: 500,
      url: `${engine}/generate`,
      message: `500 scheduler died at ${engine}/generate`,
    }),
    status: 502,
    code: "backend_error",
    param: null,
    message: "the inference backend failed: 500 scheduler died at <engine>",
  },
  {
    row: "SglangServerError",
    title: "an engine 503 with Retry-After (retryable, the wait passed on)",
    error: foreign(["SglangError", "SglangApiError", "SglangServerError"], {
      status: 503,
      retryAfterSeconds: 7,
      url: `${engine}/generate`,
      message: "503 the server is starting",
    }),
    status: 503,
    code: "backend_unavailable",
    param: null,
    message: "the inference backend is unavailable: 503 the server is starting",
    retryable: true,
    retryAfterSeconds: 7,
  },
  {
    row: "SglangApiError",
    title: "an engine 429 without Retry-After (retryable)",
    error: foreign(["SglangError", "SglangApiError"], {
      status: 429,
      url: `${engine}/generate`,
      message: "429 too many requests",
    }),
    status: 429,
    type: "rate_limit_error",
    code: "backend_overloaded",
    param: null,
    message: "the inference backend is overloaded: 429 too many requests",
    retryable: true,
  },
  {
    row: "SglangApiError",
    title: "an engine 4xx it should not have sent",
    error: foreign(["SglangError", "SglangApiError"], {
      status: 422,
      retryAfterSeconds: 3,
      url: `${engine}/generate`,
      message: "422 unprocessable",
    }),
    status: 502,
    code: "backend_error",
    param: null,
    message: "the inference backend failed: 422 unprocessable",
  },
  {
    row: "SessionNotFoundError",
    title: "a closed session",
    error: foreign(["SessionNotFoundError"], { message: "session s-1 is unknown or already closed" }),
    status: 404,
    code: "session_discarded",
    param: null,
    message: "session s-1 is unknown or already closed",
  },
  {
    row: "GroupDroppedError",
    title: "a dropped group",
    error: foreign(["GroupDroppedError"], { message: "group 3 was dropped" }),
    status: 404,
    code: "session_discarded",
    param: null,
    message: "group 3 was dropped",
  },
  {
    row: "GenerationAbortedError",
    title: "the engine aborting a turn on its own",
    error: foreign(["GenerationAbortedError"], {
      message: "the inference backend aborted the generation: oom",
    }),
    status: 503,
    code: "generation_aborted",
    param: null,
    message: "the inference backend aborted the generation: oom",
    retryable: true,
  },
  {
    row: "BackendUnavailableError",
    title: "no engine at all",
    error: foreign(["BackendUnavailableError"], { message: `no engine answers at ${engine}` }),
    status: 503,
    code: "backend_unavailable",
    param: null,
    message: "no engine answers at <engine>",
    retryable: true,
  },
  {
    row: "MediaInputError",
    title: "an image a text-only chat template cannot render",
    error: new MediaInputError({
      path: "input[2].output[0]",
      reason: "this model's chat template is text-only and cannot take an image",
    }),
    status: 400,
    code: "invalid_request_error",
    param: "input",
    message: "input[2].output[0]: this model's chat template is text-only and cannot take an image",
  },
];

describe("ERROR_STATUS_TABLE", () => {
  it("should have a test row for every table entry", () => {
    expect([...new Set(rows.map((row) => row.row))].sort()).toEqual(Object.keys(ERROR_STATUS_TABLE).sort());
  });

  it.each(rows)("$row: should answer $title with $status $code", (row) => {
    expect(describeError(row.error)).toStrictEqual({
      status: row.status,
      type:
        row.type ??
        (row.status === 404
          ? "not_found_error"
          : row.status >= 500
            ? "server_error"
            : "invalid_request_error"),
      code: row.code,
      param: row.param,
      message: row.message,
      retryable: row.retryable ?? false,
      ...(row.retryAfterSeconds !== undefined ? { retryAfterSeconds: row.retryAfterSeconds } : {}),
    });
    expect(getHTTPStatusCode(row.error)).toBe(row.status);
  });

  it("should never put a URL into an agent-facing message", () => {
    for (const row of rows) expect(describeError(row.error).message).not.toMatch(/https?:\/\//);
    expect(describeError(new Error(`fetch ${engine}/generate failed`)).message).toBe(
      "internal error: fetch <engine> failed",
    );
    expect(
      describeError(new ProtocolError({ status: 502, message: `upstream ${engine} failed` })).message,
    ).toBe("upstream <engine> failed");
  });

  it("should write canonical params in the Responses protocol's terms", () => {
    const resend = rows[1]!.error;
    expect(describeError(resend, "responses").param).toBe("input");
    expect(describeError(resend, "chat-completions").param).toBe("messages");
  });

  it("should keep a ProtocolError's own status, an AbortError at 499 and unknown errors at 500", () => {
    expect(getHTTPStatusCode(new ProtocolError({ status: 418, message: "teapot" }))).toBe(418);
    expect(getHTTPStatusCode(new DOMException("aborted", "AbortError"))).toBe(499);
    expect(getHTTPStatusCode(new TypeError("x"))).toBe(500);
    expect(getHTTPStatusCode("a string")).toBe(500);
  });
});
