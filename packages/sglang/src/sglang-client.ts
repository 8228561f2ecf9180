import { EventSourceParserStream } from "eventsource-parser/stream";
import type { KyInstance } from "ky";
import type { z } from "zod";
import { GenerateStreamAccumulator } from "./accumulate-generate-stream";
import { convertGenerateRequest } from "./convert-generate-request";
import { createRequestId, requestIdsCollide } from "./create-request-id";
import { createSglangError } from "./errors/create-sglang-error";
import { SglangAbortError } from "./errors/sglang-abort-error";
import { SglangApiError } from "./errors/sglang-api-error";
import { SglangError } from "./errors/sglang-error";
import { SglangInvalidArgumentError } from "./errors/sglang-invalid-argument-error";
import { SglangResponseError } from "./errors/sglang-response-error";
import { SglangTimeoutError } from "./errors/sglang-timeout-error";
import { formatFieldPath } from "./format-field-path";
import type { GenerateResult } from "./generate-result";
import { parseGenerateResponse } from "./parse-generate-response";
import { pickWorker } from "./pick-worker";
import {
  controlStatusResponseSchema,
  generateResponseSchema,
  modelInfoResponseSchema,
  serverInfoResponseSchema,
  streamErrorChunkSchema,
  updateWeightsResponseSchema,
  workerListResponseSchema,
} from "./sglang-api";
import type {
  AbortOutcome,
  GenerateOptions,
  GenerateStreamEvent,
  InFlightRequest,
  ModelInfo,
  ServerHealth,
  ServerInfo,
  SglangClient,
  SglangClientOptions,
} from "./sglang-client-types";
import { createKy, mapTransportError, parseBodyText, sendControl } from "./sglang-http";

/** Default routing header of the SGLang router (sgl-model-gateway). */
export const ROUTING_HEADER = "X-SMG-Routing-Key";

function normalizeUrl(url: string, field: string): string {
  try {
    const parsed = new URL(url);
    return parsed.href.replace(/\/+$/, "");
  } catch {
    throw new SglangInvalidArgumentError({ field, reason: `not a valid URL: ${JSON.stringify(url)}` });
  }
}

/**
 * Creates a client for SGLang's native API: token ids in, token ids and logprobs out.
 *
 * - `/generate` is never retried (it may have run); control calls retry with exponential backoff.
 * - Request ids are fixed-length (`createRequestId`), because `/abort_request` matches by prefix.
 * - An `AbortSignal` on `generate` sends `/abort_request` and returns the partial output.
 * - With several workers, a `routingKey` (session id) keeps a session on one worker; with a router, it
 *   is sent as `X-SMG-Routing-Key`.
 *
 * @example
 * const sglang = createSglangClient({ baseUrl: "http://127.0.0.1:30000" });
 * const result = await sglang.generate({ inputIds: [151644, 872, 198], sampling: { maxNewTokens: 64 } });
 * result.outputIds; // ids incl. the matched stop token
 * result.outputLogprobs; // aligned 1:1
 *
 * @throws SglangInvalidArgumentError when no server URL is given or a URL is invalid.
 */
export function createSglangClient(options: SglangClientOptions): SglangClient {
  return new SglangClientImpl(options);
}

class SglangClientImpl implements SglangClient {
  readonly #ky: KyInstance;
  readonly #workers: string[] | undefined;
  readonly #routerUrl: string | undefined;
  readonly #timeoutMs: number;
  readonly #controlTimeoutMs: number;
  readonly #controlRetry: SglangClientOptions["controlRetry"];
  readonly #abortGraceMs: number;
  readonly #workersCacheMs: number;
  readonly #routingHeader: string;
  readonly #inFlight = new Map<string, InFlightRequest>();
  readonly #load = new Map<string, number>();
  #roundRobin = 0;
  #routerWorkers: { urls: string[]; fetchedAt: number } | undefined;

  constructor(options: SglangClientOptions) {
    const workers = options.workers?.map((url, index) => normalizeUrl(url, `workers[${index}]`));
    const baseUrl = options.baseUrl === undefined ? undefined : normalizeUrl(options.baseUrl, "baseUrl");
    this.#routerUrl =
      options.routerUrl === undefined ? undefined : normalizeUrl(options.routerUrl, "routerUrl");
    if (workers && workers.length > 0) this.#workers = workers;
    else if (baseUrl) this.#workers = [baseUrl];
    if (!this.#workers && !this.#routerUrl) {
      throw new SglangInvalidArgumentError({
        field: "baseUrl",
        reason: "give baseUrl, workers or routerUrl",
      });
    }
    this.#timeoutMs = options.timeoutMs ?? 600_000;
    this.#controlTimeoutMs = options.controlTimeoutMs ?? 10_000;
    this.#controlRetry = options.controlRetry ?? {};
    this.#abortGraceMs = options.abortGraceMs ?? 10_000;
    this.#workersCacheMs = options.workersCacheMs ?? 5_000;
    this.#routingHeader = options.routingHeader ?? ROUTING_HEADER;
    this.#ky = createKy({ fetch: options.fetch, headers: options.headers });
  }

  inFlight(): InFlightRequest[] {
    return [...this.#inFlight.values()].map((request) => ({ ...request }));
  }

  async generate(options: GenerateOptions): Promise<GenerateResult> {
    const call = this.#prepareGenerate(options, false);
    const { rid, url } = call;
    try {
      let status: number;
      let text: string;
      try {
        const response = await this.#ky.post(`${url}/generate`, {
          body: call.body,
          headers: call.headers,
          retry: 0,
          timeout: false,
          throwHttpErrors: false,
          signal: call.fetchController.signal,
        });
        status = response.status;
        text = await response.text();
      } catch (error) {
        throw call.failure(error);
      }
      const body = parseBodyText(text);
      if (status < 200 || status >= 300) throw createSglangError({ url, status, body, rid });
      if (typeof body === "string") {
        throw new SglangResponseError({
          url,
          rid,
          path: "(body)",
          reason: `not JSON: ${text.slice(0, 200)}`,
        });
      }
      return parseGenerateResponse(body, {
        url,
        rid,
        inputTokens: options.inputIds.length,
        returnLogprob: options.returnLogprob ?? true,
        latencyMs: performance.now() - call.startedAt,
      });
    } finally {
      call.dispose();
    }
  }

  async *generateStream(options: GenerateOptions): AsyncGenerator<GenerateStreamEvent, void, undefined> {
    const call = this.#prepareGenerate(options, true);
    const { rid, url } = call;
    try {
      let response: Response;
      try {
        response = await this.#ky.post(`${url}/generate`, {
          body: call.body,
          headers: call.headers,
          retry: 0,
          timeout: false,
          throwHttpErrors: false,
          signal: call.fetchController.signal,
        });
      } catch (error) {
        throw call.failure(error);
      }
      if (response.status < 200 || response.status >= 300) {
        const text = await response.text().catch(() => "");
        throw createSglangError({ url, status: response.status, body: parseBodyText(text), rid });
      }
      if (!response.body) throw new SglangResponseError({ url, rid, path: "(body)", reason: "empty stream" });
      const accumulator = new GenerateStreamAccumulator({
        url,
        rid,
        inputTokens: options.inputIds.length,
        returnLogprob: options.returnLogprob ?? true,
      });
      const reader = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream())
        .getReader();
      let done = false;
      try {
        while (!done) {
          let next: ReadableStreamReadResult<{ data: string }>;
          try {
            next = await reader.read();
          } catch (error) {
            throw call.failure(error);
          }
          if (next.done) break;
          const data = next.value.data;
          if (data === "[DONE]") {
            done = true;
            break;
          }
          const delta = this.#parseStreamChunk(data, accumulator, url, rid);
          if (delta.outputIds.length > 0) yield { type: "delta", ...delta };
        }
      } finally {
        reader.releaseLock();
      }
      if (!accumulator.finished && call.aborted()) {
        throw new SglangAbortError({ url, rid, sent: true });
      }
      yield { type: "finish", result: accumulator.result({ latencyMs: performance.now() - call.startedAt }) };
    } finally {
      call.dispose();
    }
  }

  #parseStreamChunk(data: string, accumulator: GenerateStreamAccumulator, url: string, rid: string) {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      throw new SglangResponseError({
        url,
        rid,
        path: "(stream)",
        reason: `event is not JSON: ${data.slice(0, 200)}`,
      });
    }
    const error = streamErrorChunkSchema.safeParse(json);
    if (error.success) {
      const code = typeof error.data.error === "object" ? error.data.error.code : undefined;
      const status = typeof code === "number" && code >= 400 && code < 600 ? code : 400;
      throw createSglangError({ url, status, body: json, rid });
    }
    const chunk = generateResponseSchema.safeParse(json);
    if (!chunk.success) {
      const issue = chunk.error.issues[0]!;
      throw new SglangResponseError({ url, rid, path: formatFieldPath(issue.path), reason: issue.message });
    }
    return accumulator.push(chunk.data);
  }

  /** Validation, rid bookkeeping, target choice, abort/timeout wiring shared by both generate paths. */
  #prepareGenerate(options: GenerateOptions, stream: boolean) {
    const rid = options.rid ?? createRequestId();
    if (typeof rid !== "string" || rid.length === 0) {
      throw new SglangInvalidArgumentError({ field: "rid", reason: "must be a non-empty string" });
    }
    for (const other of this.#inFlight.keys()) {
      if (other === rid || requestIdsCollide(rid, other)) {
        throw new SglangInvalidArgumentError({
          field: "rid",
          reason: `${JSON.stringify(rid)} collides with in-flight rid ${JSON.stringify(other)} (SGLang aborts by prefix)`,
        });
      }
    }
    const wire = convertGenerateRequest({
      rid,
      inputIds: options.inputIds,
      sampling: options.sampling,
      returnLogprob: options.returnLogprob ?? true,
    });
    if (stream) wire.stream = true;
    const body = JSON.stringify(wire);
    const url =
      options.url === undefined ? this.#chooseTarget(options.routingKey) : normalizeUrl(options.url, "url");
    const signal = options.signal;
    if (signal?.aborted) throw new SglangAbortError({ url, rid, sent: false });

    const headers: Record<string, string> = { "content-type": "application/json" };
    if (options.routingKey !== undefined) headers[this.#routingHeader] = options.routingKey;

    const startedAt = performance.now();
    this.#inFlight.set(rid, { rid, url, startedAt });
    this.#load.set(url, (this.#load.get(url) ?? 0) + 1);
    const fetchController = new AbortController();
    let aborted = false;
    let timedOut = false;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const viaRouter = this.#routerUrl !== undefined && url === this.#routerUrl;
    const sendAbort = () => {
      const work = viaRouter ? this.abort(rid) : this.#abortOn([url], { rid });
      work.catch(() => undefined);
    };
    const onAbort = () => {
      aborted = true;
      sendAbort();
      graceTimer = setTimeout(() => fetchController.abort(), this.#abortGraceMs);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const timeoutTimer = Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          timedOut = true;
          sendAbort();
          fetchController.abort();
        }, timeoutMs)
      : undefined;

    return {
      rid,
      url,
      body,
      headers,
      startedAt,
      fetchController,
      aborted: () => aborted,
      /** Maps a transport failure, knowing whether we caused it. */
      failure: (error: unknown): SglangError => {
        if (timedOut) return new SglangTimeoutError({ url, timeoutMs, rid, cause: error });
        if (aborted) return new SglangAbortError({ url, rid, sent: true, cause: error });
        if (SglangError.isInstance(error)) return error;
        return mapTransportError(error, { url, rid });
      },
      dispose: () => {
        signal?.removeEventListener("abort", onAbort);
        if (timeoutTimer) clearTimeout(timeoutTimer);
        if (graceTimer) clearTimeout(graceTimer);
        this.#inFlight.delete(rid);
        this.#load.set(url, Math.max(0, (this.#load.get(url) ?? 1) - 1));
      },
    };
  }

  #chooseTarget(routingKey: string | undefined): string {
    if (this.#routerUrl) return this.#routerUrl;
    const workers = this.#workers!;
    if (workers.length === 1) return workers[0]!;
    if (routingKey !== undefined) return pickWorker(routingKey, workers);
    // Least in flight; ties broken round-robin.
    let best: string[] = [];
    let bestLoad = Number.POSITIVE_INFINITY;
    for (const worker of workers) {
      const load = this.#load.get(worker) ?? 0;
      if (load < bestLoad) {
        bestLoad = load;
        best = [worker];
      } else if (load === bestLoad) best.push(worker);
    }
    return best[this.#roundRobin++ % best.length]!;
  }

  async workers(): Promise<string[]> {
    if (this.#workers) return [...this.#workers];
    const cached = this.#routerWorkers;
    if (cached && performance.now() - cached.fetchedAt < this.#workersCacheMs) return [...cached.urls];
    const body = await this.#controlWithFallback(this.#routerUrl!, ["/workers", "/list_workers"], "get");
    const parsed = this.#parseControl(workerListResponseSchema, body, `${this.#routerUrl}/workers`);
    const listed: string[] = Array.isArray(parsed.workers)
      ? (parsed.workers as { url: string }[]).map((worker) => worker.url)
      : (parsed.urls as string[]);
    const urls = listed.map((url, index) => normalizeUrl(url, `workers[${index}]`));
    this.#routerWorkers = { urls, fetchedAt: performance.now() };
    return [...urls];
  }

  async abort(rid: string, { allowPrefix = false }: { allowPrefix?: boolean } = {}): Promise<AbortOutcome[]> {
    if (typeof rid !== "string" || rid.length === 0) {
      throw new SglangInvalidArgumentError({ field: "rid", reason: "must be a non-empty string" });
    }
    if (!allowPrefix) {
      for (const other of this.#inFlight.keys()) {
        if (other !== rid && other.startsWith(rid)) {
          throw new SglangInvalidArgumentError({
            field: "rid",
            reason: `aborting ${JSON.stringify(rid)} would also abort in-flight ${JSON.stringify(other)} (prefix match); pass allowPrefix to mean it`,
          });
        }
      }
    }
    return this.#abortOn(await this.workers(), { rid });
  }

  async abortAll(): Promise<AbortOutcome[]> {
    return this.#abortOn(await this.workers(), { abort_all: true });
  }

  async #abortOn(urls: string[], json: { rid: string } | { abort_all: true }): Promise<AbortOutcome[]> {
    const settled = await Promise.allSettled(
      urls.map((url) => this.#control(`${url}/abort_request`, "post", json)),
    );
    return settled.map((outcome, index) =>
      outcome.status === "fulfilled"
        ? { url: urls[index]!, ok: true }
        : { url: urls[index]!, ok: false, error: outcome.reason as Error },
    );
  }

  async health({ generate = false }: { generate?: boolean } = {}): Promise<ServerHealth[]> {
    const path = generate ? "/health_generate" : "/health";
    const targets: { url: string; role: "worker" | "router" }[] = [];
    if (this.#routerUrl) targets.push({ url: this.#routerUrl, role: "router" });
    let workers: string[] = [];
    try {
      workers = await this.workers();
    } catch {
      // The router could not list its workers; report the router alone.
    }
    for (const url of workers) targets.push({ url, role: "worker" });
    return Promise.all(
      targets.map(async ({ url, role }): Promise<ServerHealth> => {
        try {
          await sendControl({
            kyInstance: this.#ky,
            url: `${url}${path}`,
            method: "get",
            timeoutMs: this.#controlTimeoutMs,
            retry: false,
          });
          return { url, role, ok: true, status: 200 };
        } catch (error) {
          const status = SglangApiError.isInstance(error) ? error.status : undefined;
          return {
            url,
            role,
            ok: false,
            ...(status === undefined ? {} : { status }),
            error: (error as Error).message,
          };
        }
      }),
    );
  }

  async modelInfo({ url }: { url?: string } = {}): Promise<ModelInfo> {
    const target = url === undefined ? this.#defaultTarget() : normalizeUrl(url, "url");
    const body = await this.#controlWithFallback(target, ["/get_model_info", "/model_info"], "get");
    const info = this.#parseControl(modelInfoResponseSchema, body, `${target}/get_model_info`);
    const result: ModelInfo = { raw: body as Record<string, unknown> };
    if (info.model_path != null) result.modelPath = info.model_path;
    if (info.tokenizer_path != null) result.tokenizerPath = info.tokenizer_path;
    if (info.is_generation != null) result.isGeneration = info.is_generation;
    if (info.weight_version != null) result.weightVersion = info.weight_version;
    if (info.model_type != null) result.modelType = info.model_type;
    if (info.architectures != null) result.architectures = info.architectures;
    if (info.preferred_sampling_params != null)
      result.preferredSamplingParams = info.preferred_sampling_params;
    return result;
  }

  async serverInfo({ url }: { url?: string } = {}): Promise<ServerInfo> {
    const target = url === undefined ? this.#defaultTarget() : normalizeUrl(url, "url");
    const body = await this.#controlWithFallback(target, ["/get_server_info", "/server_info"], "get");
    const info = this.#parseControl(serverInfoResponseSchema, body, `${target}/get_server_info`);
    const result: ServerInfo = { raw: body as Record<string, unknown> };
    if (info.context_length != null) result.contextLength = info.context_length;
    if (info.weight_version != null) result.weightVersion = info.weight_version;
    if (info.version != null) result.version = info.version;
    if (info.max_total_num_tokens != null) result.maxTotalNumTokens = info.max_total_num_tokens;
    if (info.max_req_input_len != null) result.maxReqInputLen = info.max_req_input_len;
    if (info.tool_call_parser != null) result.toolCallParser = info.tool_call_parser;
    if (info.reasoning_parser != null) result.reasoningParser = info.reasoning_parser;
    return result;
  }

  async pauseGeneration({ mode = "abort" }: { mode?: "abort" | "retract" | "in_place" } = {}): Promise<void> {
    await this.#broadcast("/pause_generation", { mode }, controlStatusResponseSchema);
  }

  async continueGeneration(): Promise<void> {
    await this.#broadcast("/continue_generation", {}, controlStatusResponseSchema);
  }

  async updateWeightVersion({
    newVersion,
    abortAllRequests = true,
  }: {
    newVersion: string;
    abortAllRequests?: boolean;
  }): Promise<void> {
    await this.#broadcast(
      "/update_weight_version",
      { new_version: newVersion, abort_all_requests: abortAllRequests },
      updateWeightsResponseSchema,
    );
  }

  async updateWeightsFromDisk({
    modelPath,
    weightVersion,
    abortAllRequests,
    flushCache,
    loadFormat,
  }: {
    modelPath: string;
    weightVersion?: string;
    abortAllRequests?: boolean;
    flushCache?: boolean;
    loadFormat?: string;
  }): Promise<void> {
    const json: Record<string, unknown> = { model_path: modelPath };
    if (weightVersion !== undefined) json.weight_version = weightVersion;
    if (abortAllRequests !== undefined) json.abort_all_requests = abortAllRequests;
    if (flushCache !== undefined) json.flush_cache = flushCache;
    if (loadFormat !== undefined) json.load_format = loadFormat;
    await this.#broadcast("/update_weights_from_disk", json, updateWeightsResponseSchema);
  }

  async flushCache(): Promise<void> {
    await this.#broadcast("/flush_cache", undefined, undefined);
  }

  #defaultTarget(): string {
    return this.#workers?.[0] ?? this.#routerUrl!;
  }

  #control(url: string, method: "get" | "post", json?: unknown): Promise<unknown> {
    return sendControl({
      kyInstance: this.#ky,
      url,
      method,
      json,
      timeoutMs: this.#controlTimeoutMs,
      retry: this.#controlRetry ?? {},
    });
  }

  /** Tries each path in turn while the server answers 404 (routes renamed across SGLang versions). */
  async #controlWithFallback(base: string, paths: string[], method: "get" | "post"): Promise<unknown> {
    let lastError: unknown;
    for (const path of paths) {
      try {
        return await this.#control(`${base}${path}`, method);
      } catch (error) {
        if (SglangApiError.isInstance(error) && error.status === 404) {
          lastError = error;
          continue;
        }
        throw error;
      }
    }
    throw lastError;
  }

  #parseControl<S extends z.ZodType>(schema: S, body: unknown, url: string): z.infer<S> {
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new SglangResponseError({ url, path: formatFieldPath(issue.path), reason: issue.message });
    }
    return parsed.data;
  }

  /** Sends one control call to every worker; rejects with the first failure once all have settled. */
  async #broadcast(path: string, json: unknown, schema: z.ZodType | undefined): Promise<void> {
    const urls = await this.workers();
    const settled = await Promise.allSettled(
      urls.map(async (url) => {
        const body = await this.#control(`${url}${path}`, "post", json);
        if (schema) {
          const parsed = this.#parseControl(schema, body, `${url}${path}`) as { success?: boolean };
          if (parsed.success === false) throw createSglangError({ url: `${url}${path}`, status: 400, body });
        }
      }),
    );
    const failure = settled.find((outcome) => outcome.status === "rejected");
    if (failure) throw (failure as PromiseRejectedResult).reason;
  }
}
