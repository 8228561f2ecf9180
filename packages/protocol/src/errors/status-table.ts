/** How the agent-facing API (Chat Completions, Responses, Anthropic Messages) answers one error code. */
export interface AgentStatusRow {
  /** OpenAI error `type` (Chat Completions and Responses bodies, Responses `response.failed`). */
  type: string;
  /** Anthropic error `type` (Messages bodies and `event: error` frames). */
  anthropicType: string;
  /** When the agent gets it, for docs/contract.md (the table there is rendered from this). */
  when: string;
}

/** How the trainer control API (`/rollout/v1`) answers one error code. */
export interface ControlStatusRow {
  /** When the trainer gets it, for docs/trainer-api.md (the table there is rendered from this). */
  when: string;
}

/** One error code of {@link STATUS_TABLE}: its HTTP status, and how each API that answers it describes it. */
export interface StatusRow {
  /** HTTP status, 400–599 (499: the client went away). */
  status: number;
  /** Whether a client retry can help (`x-should-retry: true` on the agent-facing API). */
  retryable: boolean;
  /** Present when the agent-facing API answers this code. */
  agent?: AgentStatusRow;
  /** Present when the trainer control API answers this code. */
  control?: ControlStatusRow;
}

/**
 * The one status table of Relax: every HTTP error answer the project gives, agent-facing or control
 * API, keyed by its error `code` (the `code` of the OpenAI body, of the control API's
 * `{"error": {code, …}}`; for Messages the code picks the Anthropic `type`). A status is never written
 * anywhere else: `ERROR_STATUS_TABLE` maps an error class to a code, the protocol handler's route-level
 * refusals name a code, and the control API's `ControlError` carries a code. docs/contract.md
 * (agent-facing) and docs/trainer-api.md (control API) render their tables from this one
 * (`status-table-docs.test.ts` fails when they differ).
 *
 * Rules: a client mistake is a 4xx; the engine unreachable, too slow or answering 503 is 503 (retryable);
 * an engine 429 is 429 (retryable); any other engine failure is 502; a bug or misconfiguration is 500.
 */
export const STATUS_TABLE = {
  invalid_request_error: {
    status: 400,
    retryable: false,
    agent: {
      type: "invalid_request_error",
      anthropicType: "invalid_request_error",
      when: "malformed request (any field; the message starts with the field path, `param` names the top-level field)",
    },
  },
  context_length_exceeded: {
    status: 400,
    retryable: false,
    agent: {
      type: "invalid_request_error",
      anthropicType: "invalid_request_error",
      when: "no room for one generated token in `--rollout-max-context-len` (also when the rendered prompt's size alone proves it: refused before tokenising, the message's token count then a lower bound), or SGLang's context-length 400; `param: \"messages\"`",
    },
  },
  unsupported_conversation: {
    status: 400,
    retryable: false,
    agent: {
      type: "invalid_request_error",
      anthropicType: "invalid_request_error",
      when: 'the chat template gives no stable observation delta for the conversation; `param: "messages"`',
    },
  },
  request_limit_exceeded: {
    status: 400,
    retryable: false,
    agent: {
      type: "invalid_request_error",
      anthropicType: "invalid_request_error",
      when: "the body crosses a per-request work bound while it is scanned, before it is parsed: more items than `--max-request-messages`, content parts than `--max-request-content-parts`, tool schema values than `--max-tool-schema-nodes`, string characters than `--max-request-chars`; the message names the field path and the flag",
    },
  },
  invalid_body: {
    status: 400,
    retryable: false,
    control: {
      when: "body is not JSON or fails the schema (`path` names the field); an empty body counts as `{}` for `/pause` and `/resume` only",
    },
  },
  authentication_error: {
    status: 401,
    retryable: false,
    agent: {
      type: "authentication_error",
      anthropicType: "authentication_error",
      when: "missing or malformed credential, or the control token presented as a session credential",
    },
  },
  unauthorized: {
    status: 401,
    retryable: false,
    control: { when: "missing or wrong control token" },
  },
  session_discarded: {
    status: 404,
    retryable: false,
    agent: {
      type: "not_found_error",
      anthropicType: "not_found_error",
      when: "unknown or closed session (also a request held when its Group is dropped)",
    },
  },
  not_found: {
    status: 404,
    retryable: false,
    agent: {
      type: "not_found_error",
      anthropicType: "not_found_error",
      when: "no route for the method and path (`code: null` outside the base path)",
    },
    control: {
      when: "unknown path; `GET /view` of a service without a view page; `GET /steps/{id}/rows` of a step not finished",
    },
  },
  method_not_allowed: {
    status: 405,
    retryable: false,
    agent: {
      type: "invalid_request_error",
      anthropicType: "invalid_request_error",
      when: "another method than `POST` on a generation route (with `allow: POST`)",
    },
  },
  state_conflict: {
    status: 409,
    retryable: false,
    agent: {
      type: "invalid_request_error",
      anthropicType: "invalid_request_error",
      when: "a commit would give an existing state a different node kind (a generated reply equal to an observation the agent sent earlier); nothing was committed",
    },
  },
  step_out_of_order: {
    status: 409,
    retryable: false,
    control: { when: "`rollout_id` is beyond `next_rollout_id` (a skip; a finished step is replayed)" },
  },
  step_running: {
    status: 409,
    retryable: false,
    control: { when: "a step or eval is already running" },
  },
  not_paused: {
    status: 409,
    retryable: false,
    control: { when: "`POST /weights` while generation is not paused" },
  },
  pause_cancelled: {
    status: 409,
    retryable: false,
    control: { when: "a `resume` reopened generation before this `pause` reached quiescence" },
  },
  request_too_large: {
    status: 413,
    retryable: false,
    agent: {
      type: "invalid_request_error",
      anthropicType: "request_too_large",
      when: "body larger than `--max-request-bytes`",
    },
  },
  backend_overloaded: {
    status: 429,
    retryable: true,
    agent: { type: "rate_limit_error", anthropicType: "rate_limit_error", when: "SGLang answered 429" },
  },
  client_disconnect: {
    status: 499,
    retryable: false,
    agent: {
      type: "client_disconnect",
      anthropicType: "invalid_request_error",
      when: "client disconnected (reported to logs and metrics; nobody reads the answer)",
    },
  },
  chat_template_error: {
    status: 500,
    retryable: false,
    agent: {
      type: "server_error",
      anthropicType: "api_error",
      when: "the chat template is missing, does not parse or fails while rendering",
    },
  },
  parser_not_configured: {
    status: 500,
    retryable: false,
    agent: {
      type: "server_error",
      anthropicType: "api_error",
      when: "an unknown tool-call or reasoning parser",
    },
  },
  tokenizer_unavailable: {
    status: 500,
    retryable: false,
    agent: { type: "server_error", anthropicType: "api_error", when: "the tokenizer cannot be loaded" },
  },
  rollout_stalled: {
    status: 500,
    retryable: false,
    control: {
      when: "the step stopped: every replacement Group kept failing (usually the last record of a stream)",
    },
  },
  eval_function_failed: {
    status: 500,
    retryable: false,
    control: {
      when: "the `--eval-function-path` function threw or returned an invalid result (the last record of an eval stream)",
    },
  },
  unsupported_endpoint: {
    status: 501,
    retryable: false,
    agent: {
      type: "invalid_request_error",
      anthropicType: "api_error",
      when: "an endpoint of the hosted APIs that Relax does not serve (none today)",
    },
  },
  backend_error: {
    status: 502,
    retryable: false,
    agent: { type: "server_error", anthropicType: "api_error", when: "SGLang returned another error" },
    control: { when: "the inference engine failed" },
  },
  backend_unavailable: {
    status: 503,
    retryable: true,
    agent: {
      type: "server_error",
      anthropicType: "api_error",
      when: "SGLang unreachable, timed out or answered 503",
    },
    control: { when: "the inference engine is unreachable (also `GET /health` when it is unhealthy)" },
  },
  generation_aborted: {
    status: 503,
    retryable: true,
    agent: { type: "server_error", anthropicType: "api_error", when: "the engine aborted the generation" },
  },
  interrupted: {
    status: 503,
    retryable: false,
    control: { when: "the service is stopping (SIGINT / SIGTERM); the step was interrupted" },
  },
  pause_timeout: {
    status: 504,
    retryable: false,
    control: {
      when: "`timeout_s` passed before nothing was generating (generation stays paused; call `pause` again to keep waiting, or `resume`)",
    },
  },
  internal_error: {
    status: 500,
    retryable: false,
    agent: { type: "server_error", anthropicType: "api_error", when: "anything else (a bug)" },
    control: { when: "an unexpected failure of the service (a bug, never a client mistake)" },
  },
} as const satisfies Record<string, StatusRow>;

/** An error code of {@link STATUS_TABLE}. */
export type StatusCode = keyof typeof STATUS_TABLE;

/** A code the agent-facing API answers (its row has an `agent` part). */
export type AgentStatusCode = {
  [K in StatusCode]: (typeof STATUS_TABLE)[K] extends { agent: AgentStatusRow } ? K : never;
}[StatusCode];

/** A code the trainer control API answers (its row has a `control` part). */
export type ControlStatusCode = {
  [K in StatusCode]: (typeof STATUS_TABLE)[K] extends { control: ControlStatusRow } ? K : never;
}[StatusCode];

/** Whether `code` is a code of {@link STATUS_TABLE}. */
export function isStatusCode(code: unknown): code is StatusCode {
  return typeof code === "string" && Object.hasOwn(STATUS_TABLE, code);
}

/** The row of an agent-facing code, or `undefined` for a code the agent-facing API never answers. */
export function agentStatusRow(code: unknown): (StatusRow & { agent: AgentStatusRow }) | undefined {
  if (!isStatusCode(code)) return undefined;
  const row: StatusRow = STATUS_TABLE[code];
  return row.agent !== undefined ? (row as StatusRow & { agent: AgentStatusRow }) : undefined;
}

/**
 * The HTTP status of a code, e.g. `statusOf("state_conflict")` → 409.
 * @throws RangeError for a code not in {@link STATUS_TABLE} (a bug: every code the project answers is there).
 */
export function statusOf(code: StatusCode): number {
  if (!isStatusCode(code)) throw new RangeError(`no status for error code ${JSON.stringify(code)}`);
  return STATUS_TABLE[code].status;
}
