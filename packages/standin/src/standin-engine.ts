import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import {
  abortRequestSchema,
  generateRequestSchema,
  pauseGenerationRequestSchema,
  updateWeightsFromDiskRequestSchema,
  updateWeightVersionRequestSchema,
} from "@relax/sglang";
import { buildGenerateResponse, type ResponseShape } from "./build-generate-response";
import type { StandinCall, StandinEngine, StandinEngineOptions } from "./standin-engine-types";
import { FaultInjector, type StandinFault } from "./standin-faults";
import { type StandinJob, StandinScheduler } from "./standin-scheduler";
import { STANDIN_VERSION } from "./standin-version";

/** Headers of SGLang's `/generate` event stream. */
export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
} as const;

/** Formats one SSE `data:` frame the way SGLang writes it (`data: <json>\n\n`). */
export function formatSseData(data: string): string {
  return `data: ${data}\n\n`;
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

/** SGLang's error body for a `ValueError` (`{"error":{"message":...}}`). */
function sendError(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, { error: { message } });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function lowerHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/**
 * Creates an SGLang-compatible **stand-in engine** (not a model): an HTTP server with SGLang's native
 * routes and byte-compatible field names, whose output comes from a pluggable policy. The engine does
 * what SGLang does around the policy's text: tokenises it, appends the stop token, honours
 * `max_new_tokens` / stop strings / stop token ids, reports deterministic logprobs, `cached_tokens` from
 * a prefix cache, `weight_version` and `e2e_latency`, and supports streaming, prefix-match aborts,
 * pause / continue, a concurrency limit and injected faults.
 *
 * Routes: `/generate`, `/abort_request`, `/health`, `/health_generate`, `/get_model_info` (`/model_info`),
 * `/get_server_info` (`/server_info`), `/pause_generation`, `/continue_generation`,
 * `/update_weights_from_disk` (changes only the weight label), `/update_weight_version`, `/flush_cache`.
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
  const scheduler = new StandinScheduler({
    tokenizer,
    policy: options.policy,
    seed: options.seed ?? 0,
    tokenLatencyMs: options.tokenLatencyMs ?? 0,
    queueLatencyMs: options.queueLatencyMs ?? 0,
    maxConcurrency: options.maxConcurrency ?? Number.POSITIVE_INFINITY,
    weightVersion: options.weightVersion ?? "default",
    defaultMaxNewTokens: options.defaultMaxNewTokens ?? 128,
    cacheCapacityTokens: options.cacheCapacityTokens ?? 4_000_000,
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
      has_image_understanding: false,
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

  async function handleGenerate(
    body: unknown,
    headers: Record<string, string>,
    request: IncomingMessage,
    response: ServerResponse,
    fault: StandinFault | undefined,
  ): Promise<void> {
    const receivedAt = performance.now();
    const streamRequested =
      typeof body === "object" && body !== null && (body as { stream?: unknown }).stream === true;
    let job: StandinJob;
    let shape: ResponseShape;
    try {
      ({ job, shape } = validateGenerate(body, headers, receivedAt));
    } catch (error) {
      if (!(error instanceof HttpProblem)) throw error;
      if (streamRequested && error.status === 400) {
        // SGLang raises validation errors inside the stream generator: 200, an error event, [DONE].
        response.writeHead(200, SSE_HEADERS);
        response.write(formatSseData(JSON.stringify({ error: { message: error.message } })));
        response.end(formatSseData("[DONE]"));
        return;
      }
      return sendError(response, error.status, error.message);
    }

    const stream = streamRequested;
    const incremental = options.incrementalStreamingOutput ?? false;
    const interval = job.sampling.stream_interval ?? 1;
    let sentTokens = 0;
    let sentText = 0;
    const promptLogprobs = () => scheduler.promptLogprobs(job.inputIds, shape.logprobStartLen);
    const writeChunk = (final: boolean) => {
      const range = incremental ? { from: sentTokens, textFrom: sentText } : { from: 0, textFrom: 0 };
      const { body: chunk, text } = buildGenerateResponse({
        job,
        tokenizer,
        shape,
        weightVersion: scheduler.weightVersion,
        promptLogprobs,
        final,
        range,
      });
      sentTokens = job.outputIds.length;
      sentText = text.length;
      response.write(formatSseData(JSON.stringify(chunk)));
    };

    const resetAfter = fault?.type === "reset-after-tokens" ? fault.tokens : undefined;
    job.onProgress = (current) => {
      if (resetAfter !== undefined && current.outputIds.length >= resetAfter && !request.socket.destroyed) {
        request.socket.destroy();
        return;
      }
      if (stream && current.state !== "finished" && !current.finishReason && response.writable) {
        if (current.outputIds.length - sentTokens >= interval) writeChunk(false);
      }
    };
    response.on("close", () => {
      if (!response.writableFinished) {
        scheduler.abort({ ridPrefix: job.rid, message: "Request is disconnected from the client side" });
      }
    });
    if (stream) response.writeHead(200, SSE_HEADERS);

    await scheduler.run(job);

    if (response.destroyed || request.socket.destroyed) return;
    if (job.failure !== undefined) {
      if (stream) {
        response.write(formatSseData(JSON.stringify({ error: { message: job.failure } })));
        response.end(formatSseData("[DONE]"));
      } else sendError(response, 500, job.failure);
      return;
    }
    if (stream) {
      writeChunk(true);
      response.end(formatSseData("[DONE]"));
      return;
    }
    const { body: result } = buildGenerateResponse({
      job,
      tokenizer,
      shape,
      weightVersion: scheduler.weightVersion,
      promptLogprobs,
      final: true,
    });
    sendJson(response, 200, result);
  }

  function validateGenerate(
    body: unknown,
    headers: Record<string, string>,
    receivedAt: number,
  ): { job: StandinJob; shape: ResponseShape } {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new HttpProblem(400, "The request body must be a JSON object");
    }
    const raw = body as Record<string, unknown>;
    if (Array.isArray(raw.input_ids) && Array.isArray(raw.input_ids[0])) {
      throw new HttpProblem(
        400,
        "Batch requests (input_ids as a list of lists) are not supported by the stand-in",
      );
    }
    if (Array.isArray(raw.text) || Array.isArray(raw.sampling_params) || Array.isArray(raw.rid)) {
      throw new HttpProblem(400, "Batch requests are not supported by the stand-in");
    }
    if (raw.input_ids == null && raw.text == null) {
      throw new HttpProblem(400, "Either text, input_ids or input_embeds should be provided.");
    }
    const parsed = generateRequestSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HttpProblem(400, `${issue.path.join(".") || "body"}: ${issue.message}`);
    }
    const request = parsed.data;
    const sampling = request.sampling_params ?? {};
    if ((sampling.n ?? 1) > 1) throw new HttpProblem(400, "n > 1 is not supported by the stand-in");
    const inputIds = request.input_ids ?? tokenizer.encode(request.text ?? "");
    if (inputIds.length === 0) throw new HttpProblem(400, "The input is empty");
    for (const id of inputIds) {
      if (id >= tokenizer.vocabSize) {
        throw new HttpProblem(
          400,
          `The input_ids contains values greater than the vocab size (${tokenizer.vocabSize}).`,
        );
      }
    }
    // SGLang TokenizerManager._validate_one_request, same wording and `>=` comparisons.
    if (inputIds.length >= contextLength) {
      throw new HttpProblem(
        400,
        `The input (${inputIds.length} tokens) is longer than the model's context length (${contextLength} tokens).`,
      );
    }
    const maxNewTokens = sampling.max_new_tokens;
    if (maxNewTokens != null && maxNewTokens + inputIds.length >= contextLength) {
      const total = maxNewTokens + inputIds.length;
      throw new HttpProblem(
        400,
        `Requested token count exceeds the model's maximum context length of ${contextLength} tokens. ` +
          `You requested a total of ${total} tokens: ${inputIds.length} tokens from the input messages and ` +
          `${maxNewTokens} tokens for the completion. Please reduce the number of tokens in the input ` +
          "messages or the completion to fit within the limit.",
      );
    }
    const rid = request.rid ?? randomUUID().replaceAll("-", "");
    if (scheduler.has(rid)) throw new HttpProblem(400, `Duplicate request ID detected: ${rid}`);
    const job: StandinJob = {
      rid,
      inputIds,
      sampling,
      headers,
      state: "waiting",
      outputIds: [],
      outputLogprobs: [],
      tokenVersions: [],
      cachedTokens: 0,
      receivedAt,
      controller: new AbortController(),
    };
    const shape: ResponseShape = {
      returnLogprob: request.return_logprob ?? false,
      logprobStartLen: request.logprob_start_len ?? -1,
      returnTextInLogprobs: request.return_text_in_logprobs ?? false,
      skipSpecialTokens: sampling.skip_special_tokens ?? true,
      noStopTrim: sampling.no_stop_trim ?? false,
      weightVersionSpans: options.weightVersionSpans ?? false,
    };
    return { job, shape };
  }

  function parseOrThrow<T>(
    schema: {
      safeParse(
        value: unknown,
      ):
        | { success: true; data: T }
        | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
    },
    body: unknown,
  ): T {
    const parsed = schema.safeParse(body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HttpProblem(400, `${issue.path.join(".") || "body"}: ${issue.message}`);
    }
    return parsed.data;
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
    const fault = faults.next(path);
    if (fault && applyFault(fault, request, response)) return;
    if (typeof body === "string" && method !== "GET") {
      return sendError(response, 400, `The request body is not valid JSON: ${body.slice(0, 100)}`);
    }

    try {
      switch (path) {
        case "/generate":
          if (method !== "POST" && method !== "PUT") break;
          return await handleGenerate(body, headers, request, response, fault);
        case "/abort_request": {
          const abort = parseOrThrow(abortRequestSchema, body);
          scheduler.abort({ ridPrefix: abort.rid ?? undefined, all: abort.abort_all ?? false });
          response.writeHead(200, { "content-length": 0 });
          response.end();
          return;
        }
        case "/health":
        case "/health_generate":
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
        case "/update_weights_from_disk": {
          const update = parseOrThrow(updateWeightsFromDiskRequestSchema, body);
          const paused = update.abort_all_requests ? scheduler.abort({ all: true }) : 0;
          if (update.weight_version != null) scheduler.weightVersion = update.weight_version;
          if (update.flush_cache ?? true) scheduler.flushCache({ force: true });
          return sendJson(response, 200, {
            success: true,
            message: "Succeeded to update model weights. (stand-in: only the weight version label changed)",
            num_paused_requests: paused,
          });
        }
        case "/update_weight_version": {
          const update = parseOrThrow(updateWeightVersionRequestSchema, body);
          if (update.abort_all_requests ?? true) scheduler.abort({ all: true });
          scheduler.weightVersion = update.new_version;
          return sendJson(response, 200, {
            success: true,
            message: `Weight version updated to ${update.new_version}`,
            new_version: update.new_version,
          });
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

  return {
    get url() {
      if (!baseUrl) throw new Error("the stand-in engine is not listening; call listen() first");
      return baseUrl;
    },
    listen(port = 0, host = "127.0.0.1") {
      if (server) return Promise.reject(new Error("the stand-in engine is already listening"));
      const created = createServer(requestListener);
      created.keepAliveTimeout = 5_000;
      created.on("connection", (socket) => {
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
  };
}
