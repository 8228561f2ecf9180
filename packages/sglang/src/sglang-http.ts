import ky, { isHTTPError, isNetworkError, isTimeoutError, type KyInstance } from "ky";
import { Agent } from "undici";
import { createSglangError } from "./errors/create-sglang-error";
import { SglangAbortError } from "./errors/sglang-abort-error";
import { parseRetryAfter } from "./errors/sglang-api-error";
import { SglangConnectionError } from "./errors/sglang-connection-error";
import type { SglangError } from "./errors/sglang-error";
import { SglangTimeoutError } from "./errors/sglang-timeout-error";

/** Retry policy of control calls (never used for `/generate`). */
export interface ControlRetryOptions {
  /** Retries after the first attempt. @default 3 */
  limit?: number;
  /** Delay before the first retry, in ms; doubles each retry. @default 200 */
  backoffMs?: number;
  /** Upper bound of one delay, in ms. @default 5000 */
  maxBackoffMs?: number;
}

/** Statuses a control call is retried on (the router's own retry set). */
export const RETRY_STATUS_CODES = [408, 429, 500, 502, 503, 504] as const;

/** Connection pool settings of a client's own HTTP agent (used when no `fetch` is given). */
export interface EngineConnectionOptions {
  /**
   * How long an idle kept-alive connection to the engine is reused, in ms. Kept well below the server's
   * own idle timeout (uvicorn, which serves SGLang, closes after 5 s; Node's http server after 5 s) so
   * the client always closes first: a request written on a connection the server is closing at that
   * moment fails with `UND_ERR_SOCKET` ("other side closed"), and `/generate` is never retried.
   * A server's `Keep-Alive: timeout=` hint lowers it further, minus one second. @default 2000
   */
  keepAliveTimeoutMs?: number;
  /** Most connections per engine origin; `undefined` for no limit (one per concurrent request). */
  connectionsPerOrigin?: number;
}

/** The client's dedicated undici agent: keep-alive below the server's, see {@link EngineConnectionOptions}. */
export function createEngineAgent(options: EngineConnectionOptions = {}): Agent {
  const keepAlive = options.keepAliveTimeoutMs ?? 2_000;
  return new Agent({
    keepAliveTimeout: keepAlive,
    keepAliveMaxTimeout: keepAlive,
    keepAliveTimeoutThreshold: 1_000,
    ...(options.connectionsPerOrigin !== undefined ? { connections: options.connectionsPerOrigin } : {}),
  });
}

/**
 * Creates the ky instance shared by a client: through `fetch` when given, else through the global
 * `fetch` with the client's own {@link createEngineAgent} as its dispatcher (never the process-wide
 * pool, whose keep-alive follows the server's hint and races its close).
 */
export function createKy({
  fetch,
  headers,
  agent,
}: {
  fetch?: typeof globalThis.fetch | undefined;
  headers?: Record<string, string> | undefined;
  agent?: Agent;
}): KyInstance {
  const viaAgent =
    fetch === undefined && agent !== undefined
      ? (input: RequestInfo | URL, init?: RequestInit) =>
          globalThis.fetch(input, { ...init, dispatcher: agent } as RequestInit)
      : undefined;
  const chosen = fetch ?? viaAgent;
  return ky.create({
    ...(chosen
      ? { fetch: chosen as (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> }
      : {}),
    ...(headers !== undefined ? { headers } : {}),
  });
}

/** Parses a body as JSON when it looks like JSON, else returns the text (possibly empty). */
export function parseBodyText(text: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * One control call (`/abort_request`, `/pause_generation`, `/get_model_info`, ...): retried with
 * exponential backoff on connection errors, timeouts and 408/429/5xx, since these calls are idempotent.
 * Returns the parsed body (JSON, or text for routes that answer text or nothing).
 *
 * @throws SglangConnectionError | SglangTimeoutError | SglangApiError (and subclasses) | SglangAbortError
 */
export async function sendControl({
  kyInstance,
  url,
  method,
  json,
  timeoutMs,
  retry,
  signal,
}: {
  kyInstance: KyInstance;
  url: string;
  method: "get" | "post";
  json?: unknown;
  timeoutMs: number;
  retry: ControlRetryOptions | false;
  signal?: AbortSignal;
}): Promise<unknown> {
  const limit = retry === false ? 0 : (retry.limit ?? 3);
  const backoffMs = retry === false ? 0 : (retry.backoffMs ?? 200);
  const maxBackoffMs = retry === false ? 0 : (retry.maxBackoffMs ?? 5000);
  try {
    const response = await kyInstance(url, {
      method,
      ...(json === undefined ? {} : { json }),
      timeout: timeoutMs,
      ...(signal !== undefined ? { signal } : {}),
      retry: {
        limit,
        methods: ["get", "post"],
        statusCodes: [...RETRY_STATUS_CODES],
        afterStatusCodes: [429, 503],
        maxRetryAfter: maxBackoffMs,
        backoffLimit: maxBackoffMs,
        delay: (attempt) => backoffMs * 2 ** (attempt - 1),
        retryOnTimeout: true,
      },
    });
    return parseBodyText(await response.text());
  } catch (error) {
    throw mapTransportError(error, { url, timeoutMs, signal });
  }
}

/** Maps a ky / fetch failure to the client's typed errors. */
export function mapTransportError(
  error: unknown,
  {
    url,
    timeoutMs,
    rid,
    signal,
  }: {
    url: string;
    timeoutMs?: number;
    rid?: string | undefined;
    signal?: AbortSignal | undefined;
  },
): SglangError {
  if (isHTTPError(error)) {
    const body = error.data ?? "";
    return createSglangError({
      url,
      status: error.response.status,
      body,
      rid,
      retryAfterSeconds: parseRetryAfter(error.response.headers.get("retry-after")),
      cause: error,
    });
  }
  if (isTimeoutError(error))
    return new SglangTimeoutError({ url, timeoutMs: timeoutMs ?? 0, rid, cause: error });
  if (signal?.aborted) return new SglangAbortError({ url, rid, sent: true, cause: error });
  if (isNetworkError(error)) return new SglangConnectionError({ url, rid, cause: error.cause ?? error });
  return new SglangConnectionError({ url, rid, cause: error });
}
