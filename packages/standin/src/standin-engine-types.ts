import type { IncomingMessage, ServerResponse } from "node:http";
import type { TextTokenizer, VisionProcessorConfig } from "@relax/chat";
import type { StandinPolicy } from "./policies/standin-policy";
import type { StandinFaultRule } from "./standin-faults";
import type { StandinRequestSnapshot } from "./standin-scheduler";

/** Options of `createStandinEngine`. */
export interface StandinEngineOptions {
  /** Tokenizer used to decode prompts for the policy and to tokenise its text. */
  tokenizer: TextTokenizer;
  /** Decides what to "generate". */
  policy: StandinPolicy;
  /** Seed of the deterministic logprobs. @default 0 */
  seed?: number;
  /** Delay per generated token, in ms (0: only yields to the event loop). @default 0 */
  tokenLatencyMs?: number | undefined;
  /** Delay before the first token of each request (prefill), in ms. @default 0 */
  queueLatencyMs?: number | undefined;
  /** Requests generated at once; the rest wait in a FIFO queue. @default Infinity */
  maxConcurrency?: number | undefined;
  /**
   * Serve as a vision-language engine would: `image_data` is accepted when it has one entry per
   * `imagePadId` in `input_ids`, and `prompt_tokens` (and the context checks) count each image at its
   * processor-expanded length, as SGLang reports it. Without it `image_data` is refused (a text model).
   */
  vision?: { processor: VisionProcessorConfig; imagePadId: number };
  /** Context length for SGLang's 400s ("The input (N tokens) is longer ..."). @default 32768 */
  contextLength?: number | undefined;
  /** `max_new_tokens` when a request does not set it (SGLang's default). @default 128 */
  defaultMaxNewTokens?: number | undefined;
  /** Faults to inject (more can be added with `injectFault`). */
  faults?: StandinFaultRule[];
  /**
   * How long `/health_generate` waits while generation is paused before answering 503, in ms (SGLang's
   * `SGLANG_HEALTH_CHECK_TIMEOUT`: its probe request is held by the pause like any other). @default 20000
   */
  healthCheckTimeoutMs?: number;
  /** Initial `weight_version` label. @default "default" */
  weightVersion?: string | undefined;
  /** Stream deltas instead of cumulative snapshots (SGLang `--incremental-streaming-output`). @default false */
  incrementalStreamingOutput?: boolean;
  /** Report `meta_info.weight_versions` spans (newer SGLang builds). @default false */
  weightVersionSpans?: boolean;
  /** `model_path` reported by `/get_model_info`. @default "relax-standin (not a model)" */
  modelPath?: string;
  /** `tokenizer_path` reported by `/get_model_info`. @default "relax-standin-tokenizer" */
  tokenizerPath?: string;
  /** Prefix-cache capacity in tokens (the cache is dropped when full). @default 4000000 */
  cacheCapacityTokens?: number;
  /**
   * Most plans of aborted requests kept for exact continuation (a later `/generate` whose `input_ids`
   * are the aborted prompt followed by its emitted ids continues the plan; oldest evicted first; also
   * bounded by `cacheCapacityTokens` ids in all). 0 disables continuation. @default 1024
   */
  continuationCapacity?: number | undefined;
}

/** One HTTP request the engine received. */
export interface StandinCall {
  method: string;
  /** Path without the query string, e.g. `/generate`. */
  path: string;
  /** Request headers, lower-cased. */
  headers: Record<string, string>;
  /** Parsed JSON body, the raw text when it was not JSON, or `undefined` when empty. */
  body: unknown;
  /** `Date.now()` at receipt. */
  receivedAt: number;
}

/**
 * A running SGLang stand-in: an HTTP server speaking SGLang's native API. It is a stand-in for tests and
 * demos, not a model.
 */
export interface StandinEngine {
  /** Base URL, e.g. `http://127.0.0.1:40123`. Throws before `listen`. */
  readonly url: string;
  /** Starts listening (port 0 = any free port). Resolves with the base URL. @default host "127.0.0.1" */
  listen(port?: number, host?: string): Promise<string>;
  /** Aborts everything in flight, drops open connections and stops listening. */
  close(): Promise<void>;
  /** Every request received, in order (`/generate` bodies included). */
  readonly calls: StandinCall[];
  /** Current `weight_version` label. */
  readonly weightVersion: string;
  /** The Node request listener, to mount the engine in another server. */
  readonly requestListener: (request: IncomingMessage, response: ServerResponse) => void;
  /** Adds a fault rule at runtime. */
  injectFault(rule: StandinFaultRule): void;
  /** Removes every fault rule. */
  clearFaults(): void;
  /**
   * Starts an engine outage (see `StandinOutage`): every request in flight is dropped without an answer
   * and its generation aborted; then, until the window ends (`durationMs`, or {@link endOutage}), every
   * connection is reset as it opens (`mode: "refuse"`, a crashed server) or every request is answered
   * `503` (`mode: "http-503"`, a server that is up but not ready). @default mode "refuse", no end
   */
  startOutage(options?: { mode?: "refuse" | "http-503"; durationMs?: number }): void;
  /** Ends the outage in force (a no-op without one). */
  endOutage(): void;
  /** The outage mode in force, or `undefined`. */
  readonly outage: "refuse" | "http-503" | undefined;
  /**
   * Stalls generation (a hung scheduler): requests in flight stop producing tokens, new ones produce
   * nothing, `/health_generate` does not answer; `/health` still answers 200. Ends after `durationMs` or
   * at {@link endStall}; everything then continues where it stopped. @default no end
   */
  startStall(options?: { durationMs?: number }): void;
  /** Ends the stall in force (a no-op without one). */
  endStall(): void;
  /** Whether generation is stalled. */
  readonly stalled: boolean;
  /** Aborts in-flight requests whose rid starts with `ridPrefix` (like `/abort_request`). */
  abort(ridPrefix: string): number;
  /** Requests waiting or running. */
  requests(): StandinRequestSnapshot[];
  /** Resolves once `predicate(requests())` holds; re-checked on every state change and token. */
  until(predicate: (requests: StandinRequestSnapshot[]) => boolean): Promise<void>;
  /** Resolves once a request (whose rid starts with `rid`, if given) has generated `tokens` ids. */
  whenGenerated(options: { rid?: string; tokens: number }): Promise<void>;
  /** Clears the prefix cache (even with requests in flight). */
  flushCache(): void;
  /** Plans of aborted requests kept for exact continuation. */
  readonly continuationsKept: number;
}
