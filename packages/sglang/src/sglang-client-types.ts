import type { GenerateStreamDelta } from "./accumulate-generate-stream";
import type { GenerateResult } from "./generate-result";
import type { SamplingParams } from "./sampling-params";
import type { ControlRetryOptions, EngineConnectionOptions } from "./sglang-http";

/** Options of `createSglangClient`. Give `baseUrl`, or `workers`, or `routerUrl` (with or without `workers`). */
export interface SglangClientOptions {
  /** One SGLang server, e.g. `http://127.0.0.1:30000`. */
  baseUrl?: string | undefined;
  /**
   * Several SGLang workers. Without `routerUrl`, `generate` picks one per request: by `routingKey`
   * (rendezvous hashing, so a session keeps its worker and its prefix cache), else the least busy.
   * With `routerUrl`, these are the workers that aborts and control calls go to.
   */
  workers?: string[];
  /**
   * An SGLang router / sgl-model-gateway. `generate` goes through it with `X-SMG-Routing-Key`; aborts
   * and control calls go to every worker (`workers`, or the router's `GET /workers` list).
   */
  routerUrl?: string;
  /** Time limit of one `generate` call, in ms (on expiry the rid is aborted). @default 600000 */
  timeoutMs?: number;
  /** Per-attempt time limit of control calls, in ms. @default 10000 */
  controlTimeoutMs?: number;
  /** Retry policy of control calls; `false` disables retries. `/generate` is never retried. */
  controlRetry?: ControlRetryOptions | false;
  /**
   * After an `AbortSignal` fires, how long to wait for the server's partial (`finish_reason: abort`)
   * response before giving up with `SglangAbortError`, in ms. @default 10000
   */
  abortGraceMs?: number;
  /** How long a worker list fetched from the router is reused, in ms. @default 5000 */
  workersCacheMs?: number;
  /** Header carrying the routing key. @default "X-SMG-Routing-Key" */
  routingHeader?: string;
  /** Extra headers on every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
  /**
   * A `fetch` implementation (instrumentation, tests). @default the global `fetch` through the client's
   * own connection pool (see `connections`)
   */
  fetch?: typeof globalThis.fetch | undefined;
  /** The client's own connection pool to the engine (ignored when `fetch` is given). */
  connections?: EngineConnectionOptions;
  /**
   * Use SGLang's engine sessions for `generate` calls that carry a `routingKey` (and no images): the
   * client opens one engine session per key (`/open_session`) and from the key's second call on sends
   * only the ids after the prefix the engine already holds (`session_params: {id, rid, offset}`); the
   * engine runs exactly the full ids. `generateStream` and calls without a key send full ids. A call with
   * `imageData` sends its full ids and images without `session_params` and closes the key's engine
   * session (SGLang counts `offset` in its image-expanded ids, which the client does not know); a later
   * text-only call opens a new one. Close a key's session with `closeEngineSession`. Not with `routerUrl`
   * (a session lives on one worker).
   * @default false
   */
  engineSessions?: boolean;
  /** `capacity_of_str_len` sent to `/open_session`. @default 1048576 */
  engineSessionCapacity?: number;
}

/** Arguments of `generate` / `generateStream`. */
export interface GenerateOptions {
  /** Prompt token ids, sent as `input_ids` exactly (no BOS is added, no template applied). */
  inputIds: ArrayLike<number>;
  /**
   * Images of the prompt (`image_data`), one per image placeholder in `inputIds`, in prompt order: `data:`
   * URIs or http(s) URLs as the agent sent them. Omitted (or empty) for text prompts.
   */
  imageData?: readonly string[];
  sampling?: SamplingParams;
  /**
   * Request id. Default: a fresh `createRequestId()` (32 hex chars). A custom rid must not be a prefix of
   * another in-flight rid of this client, nor have one as prefix (SGLang aborts by prefix).
   */
  rid?: string;
  /**
   * Aborts the request: the client sends `/abort_request` and **returns** the partial output with
   * `finishReason.type === "abort"` (throws `SglangAbortError` only if nothing can be returned).
   */
  signal?: AbortSignal;
  /** Session id for affinity: sent as `X-SMG-Routing-Key`, and used to pick a worker. */
  routingKey?: string;
  /** Ask for output logprobs (`return_logprob`). @default true */
  returnLogprob?: boolean;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Send to this base URL, bypassing worker selection and the router. */
  url?: string;
}

/** An event of `generateStream`. */
export type GenerateStreamEvent =
  | ({ type: "delta" } & GenerateStreamDelta)
  | { type: "finish"; result: GenerateResult };

/** A request this client has sent and not yet finished. */
export interface InFlightRequest {
  rid: string;
  /** Base URL it was sent to. */
  url: string;
  /** `performance.now()` when it was sent. */
  startedAt: number;
}

/** Result of `health()` for one server. */
export interface ServerHealth {
  url: string;
  role: "worker" | "router";
  ok: boolean;
  /** HTTP status, when a response arrived. */
  status?: number;
  /** Why it is not healthy, when it is not. */
  error?: string;
}

/** `GET /get_model_info`, camelCased; `raw` keeps the whole body. */
export interface ModelInfo {
  modelPath?: string;
  tokenizerPath?: string;
  isGeneration?: boolean;
  weightVersion?: string;
  modelType?: string;
  architectures?: string[];
  preferredSamplingParams?: unknown;
  raw: Record<string, unknown>;
}

/** `GET /get_server_info`, the fields Relax uses, camelCased; `raw` keeps every server arg. */
export interface ServerInfo {
  /** Context length in tokens. */
  contextLength?: number;
  weightVersion?: string;
  /** SGLang version string. */
  version?: string;
  maxTotalNumTokens?: number;
  maxReqInputLen?: number;
  toolCallParser?: string;
  reasoningParser?: string;
  raw: Record<string, unknown>;
}

/** What `abort` did on one worker. */
export interface AbortOutcome {
  url: string;
  ok: boolean;
  error?: Error;
}

/**
 * What `updateWeightsFromDisk` did on one worker: SGLang's `{success, message, num_paused_requests}`
 * answer (`success: false` comes with HTTP 400 and is reported here, not thrown), or `error` when the
 * worker gave no such answer (connection, timeout, another status after retries, an unparsable body).
 */
export interface WeightUpdateOutcome {
  /** Worker base URL. */
  url: string;
  /** Whether the worker loaded the weights (false as well when `error` is set). */
  success: boolean;
  /** The worker's `message` (the error's message when `error` is set). */
  message: string;
  /** SGLang's `num_paused_requests`, when the worker reported it. */
  numPausedRequests?: number;
  /** Why no answer came back. */
  error?: Error;
}

/** The SGLang client. Create with `createSglangClient`. */
export interface SglangClient {
  /**
   * `POST /generate` with token ids; returns token ids and logprobs. Never retried automatically.
   *
   * @throws ContextLengthError (400 over the context length), SglangApiError / SglangServerError (other
   *   statuses), SglangConnectionError, SglangTimeoutError, SglangResponseError (untrusted body),
   *   SglangAbortError, SglangInvalidArgumentError (bad arguments; nothing sent).
   */
  generate(options: GenerateOptions): Promise<GenerateResult>;
  /**
   * Closes the engine session of `routingKey` (`/close_session`) and forgets it; a no-op without
   * `engineSessions` or for a key that has none. Never rejects (closing is best effort).
   */
  closeEngineSession(routingKey: string): Promise<void>;
  /**
   * Streaming `/generate`: yields token deltas, then one `finish` event with the full result. The
   * consumer owns cancellation (as in the Anthropic SDK's streams): stopping early — `break`, `return()`,
   * or a throw inside `for await` — sends `/abort_request` for the rid, waits for that call, closes the
   * connection and forgets the rid.
   */
  generateStream(options: GenerateOptions): AsyncGenerator<GenerateStreamEvent, void, undefined>;
  /**
   * `POST /abort_request {"rid"}` on every worker (SGLang aborts every rid that starts with it). Refuses
   * a rid that is a strict prefix of another in-flight rid of this client unless `allowPrefix`.
   * Resolves with one outcome per worker; never rejects for a worker failure.
   */
  abort(rid: string, options?: { allowPrefix?: boolean }): Promise<AbortOutcome[]>;
  /** `POST /abort_request {"abort_all": true}` on every worker. */
  abortAll(): Promise<AbortOutcome[]>;
  /** The worker base URLs (the configured list, the router's list, or `[baseUrl]`). */
  workers(): Promise<string[]>;
  /** `GET /health` (or `/health_generate`) on every worker and the router; never throws. */
  health(options?: { generate?: boolean }): Promise<ServerHealth[]>;
  /** `GET /get_model_info` (falls back to `/model_info`). */
  modelInfo(options?: { url?: string }): Promise<ModelInfo>;
  /** `GET /get_server_info` (falls back to `/server_info`). */
  serverInfo(options?: { url?: string }): Promise<ServerInfo>;
  /** `POST /pause_generation` on every worker. @default mode "abort" */
  pauseGeneration(options?: { mode?: "abort" | "retract" | "in_place" }): Promise<void>;
  /** `POST /continue_generation` on every worker. */
  continueGeneration(): Promise<void>;
  /** `POST /update_weight_version` on every worker (changes only the label). */
  updateWeightVersion(options: { newVersion: string; abortAllRequests?: boolean }): Promise<void>;
  /**
   * `POST /update_weights_from_disk` on every worker at once; resolves with one outcome per worker, in
   * worker order, once all have answered (it never rejects for one worker's failure: check `success`).
   * SGLang's defaults apply to omitted fields (`abort_all_requests: false`, `flush_cache: true`; without
   * `weightVersion` the label stays). Without a pause, SGLang answers only after the requests in flight
   * have finished.
   *
   * @throws SglangInvalidArgumentError (empty `modelPath`; nothing sent); the router's worker-list errors.
   */
  updateWeightsFromDisk(options: {
    modelPath: string;
    weightVersion?: string;
    abortAllRequests?: boolean;
    flushCache?: boolean;
    loadFormat?: string;
  }): Promise<WeightUpdateOutcome[]>;
  /** `POST /flush_cache` on every worker (refused by SGLang while requests run). */
  flushCache(): Promise<void>;
  /** Requests this client has in flight. */
  inFlight(): InFlightRequest[];
}
