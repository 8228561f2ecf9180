import type { ServerResponse } from "node:http";
import type { StandinEngineState } from "./standin-engine-state";
import { sendError, sendJson } from "./standin-http";
import { STANDIN_VERSION } from "./standin-version";

/** The body of `/get_model_info` (`/model_info`): SGLang's fields, naming the stand-in (not a model). */
export function standinModelInfo({ options, scheduler }: StandinEngineState) {
  return {
    model_path: options.modelPath ?? "relax-standin (not a model)",
    tokenizer_path: options.tokenizerPath ?? "relax-standin-tokenizer",
    is_generation: true,
    preferred_sampling_params: null,
    weight_version: scheduler.weightVersion,
    has_image_understanding: options.vision !== undefined,
    has_audio_understanding: false,
    model_type: "relax-standin",
    architectures: ["RelaxStandinEngine"],
  };
}

/**
 * The body of `/get_server_info` (`/server_info`): the model info, the context limits, and in
 * `internal_states[0]` the stand-in's knobs and scheduler counters (paused, running, waiting, ...).
 */
export function standinServerInfo(state: StandinEngineState) {
  const { options, scheduler, contextLength } = state;
  return {
    ...standinModelInfo(state),
    context_length: contextLength,
    max_req_input_len: contextLength - 1,
    max_total_num_tokens: options.cacheCapacityTokens ?? 4_000_000,
    weight_version: scheduler.weightVersion,
    incremental_streaming_output: options.incrementalStreamingOutput ?? false,
    skip_tokenizer_init: false,
    tool_call_parser: null,
    reasoning_parser: null,
    version: `relax-standin ${STANDIN_VERSION} (a stand-in for SGLang, not a model)`,
    internal_states: [
      {
        standin: true,
        seed: options.seed ?? 0,
        token_latency_ms: options.tokenLatencyMs ?? 0,
        queue_latency_ms: options.queueLatencyMs ?? 0,
        max_concurrency: options.maxConcurrency ?? null,
        paused: scheduler.paused,
        num_requests: scheduler.busy,
        num_running_reqs: scheduler.snapshot().filter((request) => request.state === "running").length,
        num_waiting_reqs: scheduler.snapshot().filter((request) => request.state === "waiting").length,
        continuations_kept: scheduler.continuationsKept,
        held_at_pause: scheduler.heldAtPause,
        cached_tokens_stored: scheduler.cachedTokensStored,
      },
    ],
  };
}

/** A signal that aborts when the client goes away before `response` was answered. */
export function disconnected(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.on("close", () => controller.abort());
  return controller.signal;
}

/**
 * `/health_generate`: 200 once the engine could generate. A stalled scheduler never answers; while
 * generation is paused the probe is held (as SGLang holds its own request) and gets a 503 after
 * `healthCheckTimeoutMs`. Nothing is sent when the client went away.
 */
export async function healthGenerate(state: StandinEngineState, response: ServerResponse): Promise<void> {
  await state.outage.whileStalled(disconnected(response));
  if (response.destroyed) return;
  if (
    !(await state.scheduler.waitResumed(state.options.healthCheckTimeoutMs ?? 20_000, disconnected(response)))
  ) {
    if (response.destroyed) return;
    return sendError(response, 503, "health check timed out: generation is paused");
  }
  if (response.destroyed) return;
  response.writeHead(200, { "content-length": 0 });
  response.end();
}

/**
 * Serves the health and info routes (`/health`, `/health_generate`, `/get_model_info`, `/model_info`,
 * `/get_server_info`, `/server_info`). Returns `false` for any other path (nothing sent).
 */
export async function handleInfoRoute(
  state: StandinEngineState,
  path: string,
  response: ServerResponse,
): Promise<boolean> {
  switch (path) {
    case "/health_generate":
      await healthGenerate(state, response);
      return true;
    case "/health":
      response.writeHead(200, { "content-length": 0 });
      response.end();
      return true;
    case "/get_model_info":
    case "/model_info":
      sendJson(response, 200, standinModelInfo(state));
      return true;
    case "/get_server_info":
    case "/server_info":
      sendJson(response, 200, standinServerInfo(state));
      return true;
    default:
      return false;
  }
}
