import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import {
  abortRequestSchema,
  pauseGenerationRequestSchema,
  updateWeightsFromDiskRequestSchema,
  updateWeightVersionRequestSchema,
} from "@relax/sglang/internal";
import { handleGenerate } from "./handle-generate";
import type { StandinCall, StandinEngine, StandinEngineOptions } from "./standin-engine-types";
import { FaultInjector, type StandinFault, type StandinFaultRule } from "./standin-faults";
import { HttpProblem, lowerHeaders, parseOrThrow, readBody, sendError, sendJson } from "./standin-http";
import { StandinOutage } from "./standin-outage";
import { StandinScheduler } from "./standin-scheduler";
import { STANDIN_VERSION } from "./standin-version";

/**
 * Creates an SGLang-compatible **stand-in engine** (not a model): an HTTP server with SGLang's native
 * routes and byte-compatible field names, whose output comes from a pluggable policy. The engine does
 * what SGLang does around the policy's text: tokenises it, appends the stop token, honours
 * `max_new_tokens` / stop strings / stop token ids, reports deterministic logprobs, `cached_tokens` from
 * a prefix cache, `weight_version` and `e2e_latency`, and supports streaming, prefix-match aborts,
 * pause / continue (`abort`, `retract`, `in_place`, each with SGLang's behaviour), exact continuation of
 * aborted requests resubmitted as prompt + partial output (see `ContinuationStore`), a concurrency limit
 * and injected faults.
 *
 * Routes: `/generate`, `/abort_request`, `/health`, `/health_generate`, `/get_model_info` (`/model_info`),
 * `/get_server_info` (`/server_info`), `/pause_generation`, `/continue_generation`,
 * `/update_weights_from_disk` and `/update_weight_version` (label only: they change the reported
 * `weight_version` and the seeded logprobs, nothing is loaded), `/flush_cache`; and, not SGLang's, the
 * test controls `/standin/outage`, `/standin/stall`, `/standin/end_stall` and `/standin/faults` (see the
 * README's fault knobs: outage windows, resets after k tokens, hangs).
 *
 * @example
 * const engine = createStandinEngine({ tokenizer, policy: scriptedPolicy(["Hello!"]) });
 * const url = await engine.listen();
 * // POST `${url}/generate` with {"input_ids": [...]} → {"text","output_ids","meta_info"}
 * await engine.close();
 */
export function createStandinEngine(options: StandinEngineOptions): StandinEngine {
  const tokenizer = options.tokenizer;
  const contextLength = options.contextLength ?? 32768;
  const outage = new StandinOutage();
  const scheduler = new StandinScheduler({
    outage,
    tokenizer,
    policy: options.policy,
    seed: options.seed ?? 0,
    tokenLatencyMs: options.tokenLatencyMs ?? 0,
    queueLatencyMs: options.queueLatencyMs ?? 0,
    maxConcurrency: options.maxConcurrency ?? Number.POSITIVE_INFINITY,
    weightVersion: options.weightVersion ?? "default",
    defaultMaxNewTokens: options.defaultMaxNewTokens ?? 128,
    cacheCapacityTokens: options.cacheCapacityTokens ?? 4_000_000,
    continuationCapacity: options.continuationCapacity ?? 1024,
  });
  const faults = new FaultInjector(options.faults);
  const calls: StandinCall[] = [];
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let baseUrl: string | undefined;

  function modelInfo() {
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

  function serverInfo() {
    return {
      ...modelInfo(),
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

  function applyFault(fault: StandinFault, request: IncomingMessage, response: ServerResponse): boolean {
    switch (fault.type) {
      case "http-error":
        sendJson(
          response,
          fault.status,
          fault.body ?? { error: { message: `stand-in injected fault (HTTP ${fault.status})` } },
          fault.headers,
        );
        return true;
      case "hang":
        return true;
      case "reset":
        request.socket.destroy();
        return true;
      case "reset-after-tokens":
        return false;
      default:
        return false;
    }
  }

  /**
   * SGLang's control routes take typed bodies: a required field that is missing (or not a string) gets
   * FastAPI's 422 `{"detail":[{type, loc, msg, input}]}`. Returns whether it answered.
   */
  function requireStringField(
    body: unknown,
    field: string,
    response: ServerResponse,
    { allowNumber = false }: { allowNumber?: boolean } = {},
  ): boolean {
    const record = typeof body === "object" && body !== null && !Array.isArray(body) ? body : undefined;
    const present = record !== undefined && field in record;
    const value = present ? (record as Record<string, unknown>)[field] : undefined;
    if (typeof value === "string" || (allowNumber && typeof value === "number")) return false;
    sendJson(response, 422, {
      detail: [
        {
          type: present ? "string_type" : "missing",
          loc: ["body", field],
          msg: present ? "Input should be a valid string" : "Field required",
          input: present ? value : (body ?? null),
        },
      ],
    });
    return true;
  }

  /**
   * `/update_weights_from_disk`, label only: the stand-in has no weights, so a successful update changes
   * `weight_version` (when given) and flushes the prefix cache (unless `flush_cache: false`). As in SGLang:
   * `abort_all_requests: true` aborts everything in flight first; without a pause the update waits for
   * the requests in flight to finish; `success: false` answers come with HTTP 400.
   */
  async function updateWeightsFromDisk(body: unknown, response: ServerResponse): Promise<void> {
    if (requireStringField(body, "model_path", response)) return;
    const update = parseOrThrow(updateWeightsFromDiskRequestSchema, body);
    const refuse = (message: string) =>
      sendJson(response, 400, { success: false, message, num_paused_requests: 0 });
    if (update.model_path!.trim() === "") {
      return refuse("Failed to update weights: model_path is empty (stand-in: nothing to load).");
    }
    if (update.abort_all_requests) scheduler.abort({ all: true });
    // Aborted requests end on their next step; without a pause, SGLang's update waits for in-flight work.
    if (scheduler.paused === false) await scheduler.drain();
    else await scheduler.drainAborted();
    const flush = update.flush_cache ?? true;
    if (flush && scheduler.busy > 0) {
      // SGLang flushes after loading and asserts the flush worked; the stand-in refuses up front instead,
      // changing nothing, so the caller sees why (requests paused in place or retracted hold the cache).
      return refuse(
        `Cache flush failed after updating weights: ${scheduler.busy} requests are paused in place or waiting; ` +
          "send flush_cache: false while generation is paused with mode in_place or retract.",
      );
    }
    if (update.weight_version != null) scheduler.weightVersion = update.weight_version;
    if (flush) scheduler.flushCache({ force: true });
    return sendJson(response, 200, {
      success: true,
      message: "Succeeded to update model weights. (stand-in: only the weight version label changed)",
      num_paused_requests: 0,
    });
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = (request.method ?? "GET").toUpperCase();
    const path = new URL(request.url ?? "/", "http://standin").pathname;
    const headers = lowerHeaders(request);
    const text = await readBody(request);
    let body: unknown;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    calls.push({ method, path, headers, body, receivedAt: Date.now() });
    if (outage.outage === "refuse") {
      request.socket.destroy();
      return;
    }
    if (outage.outage === "http-503") {
      return sendError(response, 503, "stand-in outage: the engine is not ready (HTTP 503)");
    }
    const fault = faults.next(path);
    if (fault && applyFault(fault, request, response)) return;
    if (typeof body === "string" && method !== "GET") {
      return sendError(response, 400, `The request body is not valid JSON: ${body.slice(0, 100)}`);
    }

    try {
      switch (path) {
        case "/generate":
          if (method !== "POST" && method !== "PUT") break;
          return await handleGenerate({
            body,
            headers,
            request,
            response,
            fault,
            scheduler,
            tokenizer,
            contextLength,
            incrementalStreamingOutput: options.incrementalStreamingOutput ?? false,
            weightVersionSpans: options.weightVersionSpans ?? false,
            vision: options.vision,
          });
        case "/abort_request": {
          const abort = parseOrThrow(abortRequestSchema, body);
          scheduler.abort({ ridPrefix: abort.rid ?? undefined, all: abort.abort_all ?? false });
          response.writeHead(200, { "content-length": 0 });
          response.end();
          return;
        }
        case "/health_generate":
          // A stalled scheduler never finishes the health check's generation.
          await outage.whileStalled(disconnected(response));
          if (response.destroyed) return;
          // SGLang holds the health check's own request while paused: 503 after SGLANG_HEALTH_CHECK_TIMEOUT.
          if (
            !(await scheduler.waitResumed(options.healthCheckTimeoutMs ?? 20_000, disconnected(response)))
          ) {
            if (response.destroyed) return;
            return sendError(response, 503, "health check timed out: generation is paused");
          }
          if (response.destroyed) return;
          response.writeHead(200, { "content-length": 0 });
          response.end();
          return;
        case "/health":
          response.writeHead(200, { "content-length": 0 });
          response.end();
          return;
        case "/get_model_info":
        case "/model_info":
          return sendJson(response, 200, modelInfo());
        case "/get_server_info":
        case "/server_info":
          return sendJson(response, 200, serverInfo());
        case "/pause_generation": {
          const pause = parseOrThrow(pauseGenerationRequestSchema, body);
          scheduler.pause(pause.mode ?? "abort");
          return sendJson(response, 200, { message: "Generation paused successfully.", status: "ok" });
        }
        case "/continue_generation":
          scheduler.resume();
          return sendJson(response, 200, { message: "Generation continued successfully.", status: "ok" });
        case "/update_weights_from_disk":
          return await updateWeightsFromDisk(body, response);
        case "/update_weight_version": {
          if (requireStringField(body, "new_version", response, { allowNumber: true })) return;
          const update = parseOrThrow(updateWeightVersionRequestSchema, body);
          if (update.abort_all_requests ?? true) scheduler.abort({ all: true });
          scheduler.weightVersion = update.new_version;
          return sendJson(response, 200, {
            success: true,
            message: `Weight version updated to ${update.new_version}`,
            new_version: update.new_version,
          });
        }
        case "/standin/outage": {
          // Test control of a stand-in in its own process (not an SGLang route).
          const knob = readKnob(body, ["duration_ms", "mode"]);
          const mode = knob.mode ?? "refuse";
          if (mode !== "refuse" && mode !== "http-503")
            throw new HttpProblem(400, 'mode: must be "refuse" or "http-503"');
          sendJson(response, 200, { status: "ok" });
          response.once("finish", () =>
            engine.startOutage({
              mode,
              ...(knob.duration_ms !== undefined ? { durationMs: Number(knob.duration_ms) } : {}),
            }),
          );
          return;
        }
        case "/standin/stall": {
          const knob = readKnob(body, ["duration_ms"]);
          outage.startStall(knob.duration_ms !== undefined ? { durationMs: Number(knob.duration_ms) } : {});
          return sendJson(response, 200, { status: "ok" });
        }
        case "/standin/end_stall":
          outage.endStall();
          return sendJson(response, 200, { status: "ok" });
        case "/standin/faults": {
          const rule = body as StandinFaultRule;
          if (typeof rule !== "object" || rule === null || typeof rule.fault?.type !== "string")
            throw new HttpProblem(400, "fault.type: required (http-error, hang, reset, reset-after-tokens)");
          faults.add(rule);
          return sendJson(response, 200, { status: "ok" });
        }
        case "/flush_cache": {
          if (!scheduler.flushCache()) {
            return sendError(response, 400, "Cache not flushed because there are pending requests.");
          }
          response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
          response.end("Cache flushed.\n");
          return;
        }
        default:
          break;
      }
      sendJson(response, 404, { detail: "Not Found" });
    } catch (error) {
      if (error instanceof HttpProblem) return sendError(response, error.status, error.message);
      throw error;
    }
  }

  const requestListener = (request: IncomingMessage, response: ServerResponse) => {
    route(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        sendError(
          response,
          500,
          `stand-in internal error: ${error instanceof Error ? error.message : String(error)}`,
        );
      } else response.destroy();
    });
  };

  /** The fields of a `/standin/*` control body; a non-number `duration_ms` is a 400 naming it. */
  function readKnob(body: unknown, fields: string[]): { duration_ms?: number; mode?: string } {
    const record = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!fields.includes(key))
        throw new HttpProblem(400, `${key}: unknown field (expected ${fields.join(", ")})`);
    }
    const duration = record.duration_ms;
    if (duration !== undefined && (typeof duration !== "number" || !(duration >= 0)))
      throw new HttpProblem(400, "duration_ms: must be a number of milliseconds >= 0");
    return {
      ...(duration !== undefined ? { duration_ms: duration as number } : {}),
      ...(typeof record.mode === "string" ? { mode: record.mode } : {}),
    };
  }

  /** A signal that aborts when the client goes away before `response` was answered. */
  function disconnected(response: ServerResponse): AbortSignal {
    const controller = new AbortController();
    response.on("close", () => controller.abort());
    return controller.signal;
  }

  const engine: StandinEngine = {
    get url() {
      if (!baseUrl) throw new Error("the stand-in engine is not listening; call listen() first");
      return baseUrl;
    },
    listen(port = 0, host = "127.0.0.1") {
      if (server) return Promise.reject(new Error("the stand-in engine is already listening"));
      const created = createServer(requestListener);
      created.keepAliveTimeout = 5_000;
      created.on("connection", (socket) => {
        // A server that is down: the connection opens (the port is bound) and is reset at once.
        if (outage.outage === "refuse") {
          socket.destroy();
          return;
        }
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
      });
      server = created;
      return new Promise((resolve, reject) => {
        created.once("error", reject);
        created.listen(port, host, () => {
          const address = created.address();
          const actualPort = typeof address === "object" && address ? address.port : port;
          const shownHost = host.includes(":") ? `[${host}]` : host;
          baseUrl = `http://${shownHost}:${actualPort}`;
          resolve(baseUrl);
        });
      });
    },
    async close() {
      outage.endStall();
      outage.endOutage();
      scheduler.abort({ all: true, message: "Aborted (stand-in engine closing)" });
      const current = server;
      server = undefined;
      baseUrl = undefined;
      if (!current) return;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => current.close(() => resolve()));
    },
    calls,
    get weightVersion() {
      return scheduler.weightVersion;
    },
    requestListener,
    injectFault: (rule) => faults.add(rule),
    startOutage: (outageOptions = {}) => {
      outage.startOutage(outageOptions);
      // Whatever was in flight is lost with the server: connections dropped, generation aborted.
      for (const socket of sockets) socket.destroy();
      scheduler.abort({ all: true, message: "Aborted (stand-in outage)" });
    },
    endOutage: () => outage.endOutage(),
    get outage() {
      return outage.outage;
    },
    startStall: (stallOptions) => outage.startStall(stallOptions),
    endStall: () => outage.endStall(),
    get stalled() {
      return outage.stalled;
    },
    clearFaults: () => faults.clear(),
    abort: (ridPrefix) => scheduler.abort({ ridPrefix }),
    requests: () => scheduler.snapshot(),
    until: (predicate) => scheduler.until(predicate),
    whenGenerated: ({ rid, tokens }) =>
      scheduler.until((requests) =>
        requests.some(
          (request) => (rid === undefined || request.rid.startsWith(rid)) && request.outputTokens >= tokens,
        ),
      ),
    flushCache: () => {
      scheduler.flushCache({ force: true });
    },
    get continuationsKept() {
      return scheduler.continuationsKept;
    },
  };
  return engine;
}
