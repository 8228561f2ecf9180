import { EventSourceParserStream } from "eventsource-parser/stream";
import type { KyInstance } from "ky";
import { GenerateStreamAccumulator } from "./accumulate-generate-stream";
import { convertGenerateRequestParts } from "./convert-generate-request";
import { createRequestId, requestIdsCollide } from "./create-request-id";
import { encodeGenerateBody } from "./encode-generate-body";
import { EngineGenerateTransport } from "./engine-generate-transport";
import { EngineSessionTable, type SessionSend } from "./engine-session-table";
import { createSglangError } from "./errors/create-sglang-error";
import { SglangAbortError } from "./errors/sglang-abort-error";
import { parseRetryAfter } from "./errors/sglang-api-error";
import { SglangError } from "./errors/sglang-error";
import { SglangInvalidArgumentError } from "./errors/sglang-invalid-argument-error";
import { SglangResponseError } from "./errors/sglang-response-error";
import { SglangTimeoutError } from "./errors/sglang-timeout-error";
import { formatFieldPath } from "./format-field-path";
import type { GenerateResult } from "./generate-result";
import { parseGenerateResponse } from "./parse-generate-response";
import { pickWorker } from "./pick-worker";
import { generateResponseSchema, streamErrorChunkSchema } from "./sglang-api";
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
  WeightUpdateOutcome,
} from "./sglang-client-types";
import { normalizeUrl, SglangControlPlane } from "./sglang-control-plane";
import { createEngineAgent, createKy, mapTransportError, parseBodyText } from "./sglang-http";

/** Default routing header of the SGLang router (sgl-model-gateway). */
export const ROUTING_HEADER = "X-SMG-Routing-Key";

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
  readonly #abortGraceMs: number;
  readonly #routingHeader: string;
  readonly #inFlight = new Map<string, InFlightRequest>();
  readonly #load = new Map<string, number>();
  #roundRobin = 0;
  readonly #control: SglangControlPlane;
  /** The lean `/generate` transport; undefined when a `fetch` is given (then ky carries every call). */
  readonly #transport: EngineGenerateTransport | undefined;
  /** Engine sessions per routing key (`engineSessions`); undefined: every call sends its full ids. */
  readonly #sessions: EngineSessionTable | undefined;

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
    this.#abortGraceMs = options.abortGraceMs ?? 10_000;
    this.#routingHeader = options.routingHeader ?? ROUTING_HEADER;
    this.#ky = createKy({
      fetch: options.fetch,
      headers: options.headers,
      ...(options.fetch === undefined ? { agent: createEngineAgent(options.connections) } : {}),
    });
    this.#transport =
      options.fetch === undefined
        ? new EngineGenerateTransport({
            ...(options.connections !== undefined ? { connections: options.connections } : {}),
            ...(options.headers !== undefined ? { headers: options.headers } : {}),
          })
        : undefined;
    this.#control = new SglangControlPlane({
      kyInstance: this.#ky,
      workers: this.#workers,
      routerUrl: this.#routerUrl,
      controlTimeoutMs: options.controlTimeoutMs ?? 10_000,
      controlRetry: options.controlRetry ?? {},
      workersCacheMs: options.workersCacheMs ?? 5_000,
    });
    if (options.engineSessions === true && this.#routerUrl !== undefined) {
      throw new SglangInvalidArgumentError({
        field: "engineSessions",
        reason: "engine sessions live on one worker: give baseUrl or workers, not routerUrl",
      });
    }
    const control = this.#control;
    this.#sessions =
      options.engineSessions === true
        ? new EngineSessionTable({
            open: (url) => control.openSession(url, options.engineSessionCapacity ?? 1 << 20),
            close: (url, id) => control.closeSession(url, id),
          })
        : undefined;
  }

  closeEngineSession(routingKey: string): Promise<void> {
    return this.#sessions?.forget(routingKey) ?? Promise.resolve();
  }

  async generate(options: GenerateOptions): Promise<GenerateResult> {
    const sessions = this.#sessions;
    const key = options.routingKey;
    if (sessions === undefined || key === undefined) return this.#generateOnce(options, undefined);
    if (options.imageData?.length) return this.#generateWithImages(sessions, key, options);
    const url = options.url === undefined ? this.#chooseTarget(key) : normalizeUrl(options.url, "url");
    const send = await sessions.plan(key, url, options.inputIds);
    const result = await this.#generateOnce({ ...options, url }, send);
    if (result.finishReason.type !== "abort") {
      send.commit(result.rid, result.outputIds);
      return result;
    }
    // The engine lost the session (restart, eviction): it aborted the request before running it. Start
    // over with the full ids; the next call opens a fresh session.
    if (result.outputIds.length === 0 && /session/i.test(result.finishReason.message ?? "")) {
      await sessions.forget(key);
      return this.#generateOnce({ ...options, url }, undefined);
    }
    return result;
  }

  /**
   * An image turn of a key with engine sessions: the key's engine session is closed, then the turn goes
   * with its full ids and images, without `session_params`. SGLang counts a session's `offset` in its own, expanded ids (each
   * image placeholder becomes the image's patch tokens) and pads an appended request's images over the
   * whole joined prompt, so no delta computed from the unexpanded ids is exact once an image is in the
   * prompt. A later text-only call of the key opens a new session (full ids, `replace: true`). Closing
   * never fails the call (best effort).
   */
  async #generateWithImages(
    sessions: EngineSessionTable,
    key: string,
    options: GenerateOptions,
  ): Promise<GenerateResult> {
    // Once per conversation (the key has no session afterwards); closed first, so the engine's state
    // is gone before the turn runs.
    await sessions.forget(key);
    return this.#generateOnce(options, undefined);
  }

  inFlight(): InFlightRequest[] {
    return [...this.#inFlight.values()].map((request) => ({ ...request }));
  }

  async #generateOnce(options: GenerateOptions, session: SessionSend | undefined): Promise<GenerateResult> {
    const call = this.#prepareGenerate(options, false, session);
    const { rid, url } = call;
    try {
      let status: number;
      let text: string;
      let retryAfter: number | undefined;
      try {
        if (this.#transport !== undefined) {
          const exchange = this.#transport.send(url, call.body, call.headers);
          call.onCancel(exchange.cancel);
          const reply = await exchange.reply;
          status = reply.status;
          retryAfter = parseRetryAfter(reply.retryAfter ?? null);
          text = reply.text;
        } else {
          const response = await this.#ky.post(`${url}/generate`, {
            body: call.body,
            headers: call.headers,
            retry: 0,
            timeout: false,
            throwHttpErrors: false,
            signal: call.fetchSignal(),
          });
          status = response.status;
          retryAfter = parseRetryAfter(response.headers.get("retry-after"));
          text = await response.text();
        }
      } catch (error) {
        throw call.failure(error);
      }
      const body = parseBodyText(text);
      if (status < 200 || status >= 300)
        throw createSglangError({ url, status, body, rid, retryAfterSeconds: retryAfter });
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
    // Whether the engine is done with the rid (finished, answered an error, or closed the stream). The
    // consumer owns cancellation: leaving the loop early (`break`, `return()`, a throw) aborts the rid.
    let settled = false;
    try {
      let response: Response;
      try {
        response = await this.#ky.post(`${url}/generate`, {
          body: call.body,
          headers: call.headers,
          retry: 0,
          timeout: false,
          throwHttpErrors: false,
          signal: call.fetchSignal(),
        });
      } catch (error) {
        throw call.failure(error);
      }
      if (response.status < 200 || response.status >= 300) {
        settled = true;
        const text = await response.text().catch(() => "");
        throw createSglangError({
          url,
          status: response.status,
          body: parseBodyText(text),
          rid,
          retryAfterSeconds: parseRetryAfter(response.headers.get("retry-after")),
        });
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
          if (next.done) {
            settled = true;
            break;
          }
          const data = next.value.data;
          if (data === "[DONE]") {
            settled = true;
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
      settled = true;
      yield { type: "finish", result: accumulator.result({ latencyMs: performance.now() - call.startedAt }) };
    } finally {
      try {
        if (!settled) await call.cancel();
      } finally {
        call.dispose();
      }
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
      // An error event ends the request on the engine's side; nothing to abort.
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
  #prepareGenerate(options: GenerateOptions, stream: boolean, session?: SessionSend) {
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
    const wire = convertGenerateRequestParts({
      rid,
      inputIds: options.inputIds,
      ...(options.imageData !== undefined ? { imageData: options.imageData } : {}),
      sampling: options.sampling,
      returnLogprob: options.returnLogprob ?? true,
    });
    if (stream) wire.stream = true;
    if (session !== undefined) wire.session_params = session.sessionParams;
    // The bytes of JSON.stringify({rid, input_ids, ...}), written without it (encode-generate-body.ts).
    const body = encodeGenerateBody(wire, session?.ids ?? options.inputIds);
    const url =
      options.url === undefined ? this.#chooseTarget(options.routingKey) : normalizeUrl(options.url, "url");
    const signal = options.signal;
    if (signal?.aborted) throw new SglangAbortError({ url, rid, sent: false });

    const headers: Record<string, string> = { "content-type": "application/json" };
    if (options.routingKey !== undefined) headers[this.#routingHeader] = options.routingKey;

    const startedAt = performance.now();
    this.#inFlight.set(rid, { rid, url, startedAt });
    this.#load.set(url, (this.#load.get(url) ?? 0) + 1);
    // How the call's connection is dropped: `fetchSignal()` (ky) or `onCancel` (the lean transport)
    // registers it; the lean path allocates no AbortController.
    let dropConnection: (() => void) | undefined;
    let dropped = false;
    const drop = () => {
      dropped = true;
      dropConnection?.();
    };
    let aborted = false;
    let timedOut = false;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const viaRouter = this.#routerUrl !== undefined && url === this.#routerUrl;
    const sendAbort = (): Promise<unknown> => {
      const work = viaRouter ? this.abort(rid) : this.#control.abortOn([url], { rid });
      return work.catch(() => undefined);
    };
    const onAbort = () => {
      aborted = true;
      sendAbort();
      graceTimer = setTimeout(drop, this.#abortGraceMs);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const timeoutTimer = Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          timedOut = true;
          sendAbort();
          drop();
        }, timeoutMs)
      : undefined;

    return {
      rid,
      url,
      body,
      headers,
      startedAt,
      /** A signal for ky's `fetch` that aborts when the call's connection is dropped. */
      fetchSignal: (): AbortSignal => {
        const controller = new AbortController();
        dropConnection = () => controller.abort();
        if (dropped) controller.abort();
        return controller.signal;
      },
      /** Registers the lean transport's cancel (run at once when the call was already dropped). */
      onCancel: (cancel: () => void): void => {
        dropConnection = cancel;
        if (dropped) cancel();
      },
      aborted: () => aborted,
      /**
       * The consumer stopped before the engine finished: send `/abort_request` for the rid (unless an
       * abort or timeout already did) and drop the connection. Resolves once the abort was answered.
       */
      cancel: async (): Promise<void> => {
        const alreadySent = aborted || timedOut;
        aborted = true;
        drop();
        if (!alreadySent) await sendAbort();
      },
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

  workers(): Promise<string[]> {
    return this.#control.workers();
  }

  abort(rid: string, options: { allowPrefix?: boolean } = {}): Promise<AbortOutcome[]> {
    return this.#control.abort(rid, { ...options, inFlight: this.#inFlight.keys() });
  }

  abortAll(): Promise<AbortOutcome[]> {
    return this.#control.abortAll();
  }

  health(options?: { generate?: boolean }): Promise<ServerHealth[]> {
    return this.#control.health(options);
  }

  modelInfo(options?: { url?: string }): Promise<ModelInfo> {
    return this.#control.modelInfo(options);
  }

  serverInfo(options?: { url?: string }): Promise<ServerInfo> {
    return this.#control.serverInfo(options);
  }

  pauseGeneration(options?: { mode?: "abort" | "retract" | "in_place" }): Promise<void> {
    return this.#control.pauseGeneration(options);
  }

  continueGeneration(): Promise<void> {
    return this.#control.continueGeneration();
  }

  updateWeightVersion(options: { newVersion: string; abortAllRequests?: boolean }): Promise<void> {
    return this.#control.updateWeightVersion(options);
  }

  updateWeightsFromDisk(
    options: Parameters<SglangClient["updateWeightsFromDisk"]>[0],
  ): Promise<WeightUpdateOutcome[]> {
    return this.#control.updateWeightsFromDisk(options);
  }

  flushCache(): Promise<void> {
    return this.#control.flushCache();
  }
}
