import type { KyInstance } from "ky";
import type { z } from "zod";
import { createSglangError } from "./errors/create-sglang-error";
import { SglangApiError } from "./errors/sglang-api-error";
import { SglangInvalidArgumentError } from "./errors/sglang-invalid-argument-error";
import { SglangResponseError } from "./errors/sglang-response-error";
import { formatFieldPath } from "./format-field-path";
import {
  controlStatusResponseSchema,
  modelInfoResponseSchema,
  serverInfoResponseSchema,
  updateWeightsResponseSchema,
  workerListResponseSchema,
} from "./sglang-api";
import type {
  AbortOutcome,
  ModelInfo,
  ServerHealth,
  ServerInfo,
  WeightUpdateOutcome,
} from "./sglang-client-types";
import { type ControlRetryOptions, sendControl } from "./sglang-http";

/** Normalises a base URL (no trailing slash). @throws SglangInvalidArgumentError naming `field`. */
export function normalizeUrl(url: string, field: string): string {
  try {
    return new URL(url).href.replace(/\/+$/, "");
  } catch {
    throw new SglangInvalidArgumentError({ field, reason: `not a valid URL: ${JSON.stringify(url)}` });
  }
}

/**
 * The control plane of an SGLang deployment: the worker list (configured, or the router's `GET /workers`),
 * aborts on every worker, health, model / server info, pause / continue, weight updates and cache flushes.
 * Every call here is idempotent and retried with backoff; `/generate` never goes through this class.
 */
export class SglangControlPlane {
  readonly #ky: KyInstance;
  readonly #workers: string[] | undefined;
  readonly #routerUrl: string | undefined;
  readonly #controlTimeoutMs: number;
  readonly #controlRetry: ControlRetryOptions | false;
  readonly #workersCacheMs: number;
  #routerWorkers: { urls: string[]; fetchedAt: number } | undefined;

  constructor({
    kyInstance,
    workers,
    routerUrl,
    controlTimeoutMs,
    controlRetry,
    workersCacheMs,
  }: {
    kyInstance: KyInstance;
    workers: string[] | undefined;
    routerUrl: string | undefined;
    controlTimeoutMs: number;
    controlRetry: ControlRetryOptions | false;
    workersCacheMs: number;
  }) {
    this.#ky = kyInstance;
    this.#workers = workers;
    this.#routerUrl = routerUrl;
    this.#controlTimeoutMs = controlTimeoutMs;
    this.#controlRetry = controlRetry;
    this.#workersCacheMs = workersCacheMs;
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

  async abort(
    rid: string,
    { allowPrefix = false, inFlight = [] }: { allowPrefix?: boolean; inFlight?: Iterable<string> } = {},
  ): Promise<AbortOutcome[]> {
    if (typeof rid !== "string" || rid.length === 0) {
      throw new SglangInvalidArgumentError({ field: "rid", reason: "must be a non-empty string" });
    }
    if (!allowPrefix) {
      for (const other of inFlight) {
        if (other !== rid && other.startsWith(rid)) {
          throw new SglangInvalidArgumentError({
            field: "rid",
            reason: `aborting ${JSON.stringify(rid)} would also abort in-flight ${JSON.stringify(other)} (prefix match); pass allowPrefix to mean it`,
          });
        }
      }
    }
    return this.abortOn(await this.workers(), { rid });
  }

  async abortAll(): Promise<AbortOutcome[]> {
    return this.abortOn(await this.workers(), { abort_all: true });
  }

  async abortOn(urls: string[], json: { rid: string } | { abort_all: true }): Promise<AbortOutcome[]> {
    const settled = await Promise.allSettled(
      urls.map((url) => this.#send(`${url}/abort_request`, "post", json)),
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
  }): Promise<WeightUpdateOutcome[]> {
    if (typeof modelPath !== "string" || modelPath.length === 0) {
      throw new SglangInvalidArgumentError({ field: "modelPath", reason: "must be a non-empty string" });
    }
    const json: Record<string, unknown> = { model_path: modelPath };
    if (weightVersion !== undefined) json.weight_version = weightVersion;
    if (abortAllRequests !== undefined) json.abort_all_requests = abortAllRequests;
    if (flushCache !== undefined) json.flush_cache = flushCache;
    if (loadFormat !== undefined) json.load_format = loadFormat;
    const urls = await this.workers();
    return Promise.all(urls.map((url) => this.#updateOne(url, "/update_weights_from_disk", json)));
  }

  /** One worker's weight update; SGLang's `success: false` (HTTP 400) is an outcome, not an error. */
  async #updateOne(url: string, path: string, json: unknown): Promise<WeightUpdateOutcome> {
    const target = `${url}${path}`;
    let body: unknown;
    try {
      body = await this.#send(target, "post", json);
    } catch (error) {
      if (!(SglangApiError.isInstance(error) && error.status === 400)) {
        return { url, success: false, message: (error as Error).message, error: error as Error };
      }
      body = error.body;
    }
    try {
      const parsed = this.#parseControl(updateWeightsResponseSchema, body, target);
      const outcome: WeightUpdateOutcome = { url, success: parsed.success, message: parsed.message ?? "" };
      if (parsed.num_paused_requests != null) outcome.numPausedRequests = parsed.num_paused_requests;
      return outcome;
    } catch (error) {
      return { url, success: false, message: (error as Error).message, error: error as Error };
    }
  }

  async flushCache(): Promise<void> {
    await this.#broadcast("/flush_cache", undefined, undefined);
  }

  /**
   * `POST /open_session` on `url` (not retried: a retry could open a second session). Resolves with the
   * engine's session id.
   *
   * @throws SglangResponseError when the answer is not a non-empty string; the errors of `sendControl`.
   */
  async openSession(url: string, capacityOfStrLen: number): Promise<string> {
    const raw = await sendControl({
      kyInstance: this.#ky,
      url: `${url}/open_session`,
      method: "post",
      json: { capacity_of_str_len: capacityOfStrLen },
      timeoutMs: this.#controlTimeoutMs,
      retry: false,
    });
    // A JSON string body (`"<id>"`) comes back as text from `sendControl`; some builds answer the bare id.
    let answer: unknown = raw;
    if (typeof raw === "string" && raw.trimStart().startsWith('"')) {
      try {
        answer = JSON.parse(raw);
      } catch {
        answer = raw;
      }
    }
    if (typeof answer !== "string" || answer.length === 0) {
      throw new SglangResponseError({
        url: `${url}/open_session`,
        path: "(body)",
        reason: `expected the session id as a JSON string, got ${JSON.stringify(answer)?.slice(0, 200)}`,
      });
    }
    return answer;
  }

  /** `POST /close_session` for `sessionId` on `url` (idempotent: retried like other control calls). */
  async closeSession(url: string, sessionId: string): Promise<void> {
    await this.#send(`${url}/close_session`, "post", { session_id: sessionId });
  }

  #defaultTarget(): string {
    return this.#workers?.[0] ?? this.#routerUrl!;
  }

  #send(url: string, method: "get" | "post", json?: unknown): Promise<unknown> {
    return sendControl({
      kyInstance: this.#ky,
      url,
      method,
      json,
      timeoutMs: this.#controlTimeoutMs,
      retry: this.#controlRetry,
    });
  }

  /** Tries each path in turn while the server answers 404 (routes renamed across SGLang versions). */
  async #controlWithFallback(base: string, paths: string[], method: "get" | "post"): Promise<unknown> {
    let lastError: unknown;
    for (const path of paths) {
      try {
        return await this.#send(`${base}${path}`, method);
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
        const body = await this.#send(`${url}${path}`, "post", json);
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
