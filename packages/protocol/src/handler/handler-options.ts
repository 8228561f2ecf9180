import type { AssistantTurn, CanonicalRequest } from "@relax/chat";
import type { ConversationHistory } from "../shared/conversation-history";
import { createDefaultId } from "../shared/create-default-id";
import type { HarnessNormalizers } from "../shared/harness-normalizers";
import type { Protocol, ProtocolWarning } from "../shared/protocol";
import type { ResponseFormatConstraint } from "../shared/read-response-format";
import type { ModelInfo } from "./list-models";
import { DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_REQUEST_BYTES } from "./read-json-body";
import { RefusalBackoff, type RefusalBackoffOptions } from "./refusal-backoff";
import { DEFAULT_REQUEST_LIMITS, type RequestLimits } from "./scan-request-limits";

/** What `generate` receives for one model request. */
export interface GenerateContext {
  protocol: Protocol;
  /** The credential of the request (`Authorization: Bearer` or `x-api-key`). */
  sessionId: string;
  request: CanonicalRequest;
  /** Aborts when the client disconnects; pass it on to the engine call. */
  signal: AbortSignal;
  /** The structured-output format the request asked for, if any (honoured only if the engine is told to). */
  responseFormat?: ResponseFormatConstraint;
  /**
   * The HTTP request's URL path (query string dropped) and headers (names lower-case), for request
   * classification (title, compaction, sub-agent requests of known harnesses); `authorization` and
   * `x-api-key` (the credential) are left out.
   */
  http?: { path: string; headers: Record<string, string> };
  /**
   * The request field of the `index`-th image of `request.messages` (document order, counting every
   * `image_url` part), in the protocol's terms (`input[2].output[0]`, `messages[1].content[0].content[1]`),
   * when the body's image there has the same `url`; else `undefined`. For naming an image in a 400.
   */
  imagePath: (index: number, url: string) => string | undefined;
}

/**
 * Reported once per generation or `count_tokens` request when its reply is complete (or the client went
 * away), and for every route-level refusal (no route, wrong method).
 */
export interface RequestEndEvent {
  protocol: Protocol;
  sessionId?: string | undefined;
  stream: boolean;
  /** The HTTP status, or for a stream the status its terminal sequence stands for (499 when the client left). */
  status: number;
  /** The request path (query string removed), e.g. `/agentic_api/v1/messages`. */
  path: string;
  /** For a status ≥ 400, the error message sent to the client. */
  message?: string;
  error?: unknown;
}

/** Options of {@link createProtocolHandler}. */
export interface ProtocolHandlerOptions {
  /** Runs one generation turn. Thrown errors are rendered by `toErrorResponse`'s table. */
  generate: (context: GenerateContext) => Promise<AssistantTurn>;
  /**
   * Whether a session id is live. `false` → 404 `session_discarded`. A missing or malformed credential is
   * a 401 before this is called. @default every non-empty credential is accepted
   */
  authenticate?: (sessionId: string) => boolean | Promise<boolean>;
  /** Quiet time before each SSE heartbeat, in ms; `0` disables heartbeats. @default 15000 */
  heartbeatMs?: number;
  /** A path prefix the routes live under, e.g. `/agentic_api`. @default "" */
  basePath?: string;
  /** Answers `GET /v1/models` and `/models`; without it those paths are 404. */
  models?: () => readonly ModelInfo[] | Promise<readonly ModelInfo[]>;
  /** Called for each ignored field, dropped tool or dropped block of a request. */
  onWarning?: (warning: ProtocolWarning, context: { protocol: Protocol; sessionId?: string }) => void;
  /** Called when a generation request ends, for logs and metrics. */
  onRequestEnd?: (event: RequestEndEvent) => void;
  /** Id factory for replies and their parts. @default `<prefix>_<uuid hex>` */
  createId?: (prefix: string) => string;
  /** Clock in ms since the epoch, for `created` fields. @default Date.now */
  now?: () => number;
  /** Model name echoed when the request has none. @default "relax" */
  defaultModel?: string;
  /** Harness normalisers to switch off (see {@link HarnessNormalizers}); unset ones are on. */
  normalizers?: Partial<HarnessNormalizers>;
  /**
   * The session's committed replies, for `previous_response_id`, `item_reference` and Anthropic
   * `thread` (resolved against it) and for recording each reply sent. Without it (or `undefined` for a
   * session) those fields are a 400.
   */
  history?: (sessionId: string) => ConversationHistory | undefined;
  /**
   * Counts the prompt tokens of a request under the chat template, for `POST /v1/messages/count_tokens`
   * (answered `{input_tokens}`); without it that path is 404.
   */
  countTokens?: (request: CanonicalRequest) => number | Promise<number>;
  /**
   * Largest request body read, in bytes; a larger one is refused with 413 `request_too_large` (in the
   * protocol's error format) without reading the rest. @default 33554432 (32 MiB)
   */
  maxRequestBytes?: number;
  /** Deepest array/object nesting accepted anywhere in a body (the body is level 1); deeper → 400 naming the field. @default 128 */
  maxJsonDepth?: number;
  /**
   * Per-request work bounds checked while the body's text is scanned, before it is parsed (see
   * {@link RequestLimits}); over one → 400 `request_limit_exceeded` naming the field and the flag.
   * @default DEFAULT_REQUEST_LIMITS (10,000 messages, 20,000 content parts, 20,000 tool schema values, 4 Mi characters)
   */
  requestLimits?: Partial<RequestLimits>;
  /**
   * The per-session backoff on refused bodies ({@link RefusalBackoff}): after a session's body is refused
   * (over a size or request limit, too deep, not JSON), its next body is read only 50 ms after that
   * refusal, doubling with each further refusal (less than 30 s apart) to 500 ms; `false` turns it off.
   * @default DEFAULT_REFUSAL_BACKOFF
   */
  refusalBackoff?: Partial<RefusalBackoffOptions> | false;
}

/** {@link ProtocolHandlerOptions} with every default applied: what the handler's parts read. */
export type HandlerSettings = Required<
  Pick<
    ProtocolHandlerOptions,
    | "generate"
    | "heartbeatMs"
    | "basePath"
    | "createId"
    | "now"
    | "defaultModel"
    | "maxRequestBytes"
    | "maxJsonDepth"
  >
> & {
  requestLimits: RequestLimits;
  /** The handler's one backoff on refused bodies; `undefined` when turned off. */
  backoff: RefusalBackoff | undefined;
} & Pick<
    ProtocolHandlerOptions,
    "authenticate" | "models" | "onWarning" | "onRequestEnd" | "normalizers" | "history" | "countTokens"
  >;

/** Applies the documented defaults of {@link ProtocolHandlerOptions} (heartbeat 15 s, 32 MiB, depth 128, …). */
export function resolveHandlerSettings(options: ProtocolHandlerOptions): HandlerSettings {
  return {
    ...options,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    basePath: options.basePath ?? "",
    createId: options.createId ?? createDefaultId,
    now: options.now ?? Date.now,
    defaultModel: options.defaultModel ?? "relax",
    maxRequestBytes: options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES,
    maxJsonDepth: options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
    requestLimits: { ...DEFAULT_REQUEST_LIMITS, ...definedOnly(options.requestLimits) },
    backoff: options.refusalBackoff === false ? undefined : new RefusalBackoff(options.refusalBackoff ?? {}),
  };
}

/** `limits` without its `undefined` members (so they do not override the defaults). */
function definedOnly(limits: Partial<RequestLimits> | undefined): Partial<RequestLimits> {
  if (limits === undefined) return {};
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}
