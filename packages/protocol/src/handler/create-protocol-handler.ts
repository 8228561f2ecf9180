import type { AssistantTurn, CanonicalRequest } from "@relax/chat";
import { clientDisconnect, describeError, type ErrorDescriptor } from "../errors/describe-error";
import { ProtocolError } from "../errors/protocol-error";
import { errorDescriptorToResponse } from "../errors/to-error-response";
import { createDefaultId } from "../shared/create-default-id";
import type { Protocol, ProtocolWarning } from "../shared/protocol";
import type { ResponseContext } from "../shared/response-context";
import { createBufferedSseBody } from "../sse/create-buffered-sse-body";
import { formatSseEvents } from "../sse/format-sse-frame";
import { SSE_HEADERS } from "../sse/sse-headers";
import { buildModelList, type ModelInfo } from "./list-models";
import { guessProtocol, matchRoute } from "./match-route";
import { PROTOCOL_ADAPTERS, type ProtocolAdapter } from "./protocol-adapters";
import { readCredential } from "./read-credential";
import { DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_REQUEST_BYTES, readJsonBody } from "./read-json-body";

/** What `generate` receives for one model request. */
export interface GenerateContext {
  protocol: Protocol;
  /** The credential of the request (`Authorization: Bearer` or `x-api-key`). */
  sessionId: string;
  request: CanonicalRequest;
  /** Aborts when the client disconnects; pass it on to the engine call. */
  signal: AbortSignal;
}

/** Reported once per generation request when its reply is complete (or the client went away). */
export interface RequestEndEvent {
  protocol: Protocol;
  sessionId?: string;
  stream: boolean;
  /** The HTTP status, or for a stream the status its terminal sequence stands for (499 when the client left). */
  status: number;
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
  /**
   * Largest request body read, in bytes; a larger one is refused with 413 `request_too_large` (in the
   * protocol's error format) without reading the rest. @default 33554432 (32 MiB)
   */
  maxRequestBytes?: number;
  /** Deepest array/object nesting accepted anywhere in a body (the body is level 1); deeper → 400 naming the field. @default 128 */
  maxJsonDepth?: number;
}

/**
 * Creates a Web-standard `Request → Response` handler serving Chat Completions (`/v1/chat/completions`),
 * Responses (`/v1/responses`) and Anthropic Messages (`/v1/messages`), each also without `/v1` and with
 * any query string (Claude Code sends `?beta=true`), plus `GET /v1/models`. Per request: credential
 * (401) → `authenticate` (404), both before a byte of the body is read → body of at most
 * `maxRequestBytes` (413) → JSON nested at most `maxJsonDepth` deep (400) → projection to the canonical
 * request (400 with the field path) → `generate` → JSON reply, or with `stream: true` a buffered SSE stream
 * (connected frame at once, heartbeats while generating, then the protocol's full terminal sequence;
 * errors in-stream). A client disconnect aborts the signal passed to `generate` and is reported as 499.
 *
 * @example
 * ```ts
 * const handler = createProtocolHandler({ generate: async ({ request, signal }) => runTurn(request, signal) });
 * app.all("*", (c) => handler(c.req.raw)); // Hono; see the README for node:http
 * ```
 */
export function createProtocolHandler(
  options: ProtocolHandlerOptions,
): (request: Request) => Promise<Response> {
  const {
    generate,
    authenticate,
    heartbeatMs = 15_000,
    basePath = "",
    models,
    onWarning,
    onRequestEnd,
    createId = createDefaultId,
    now = Date.now,
    defaultModel = "relax",
    maxRequestBytes = DEFAULT_MAX_REQUEST_BYTES,
    maxJsonDepth = DEFAULT_MAX_JSON_DEPTH,
  } = options;

  return async (httpRequest) => {
    const url = new URL(httpRequest.url);
    const route = matchRoute(url.pathname, basePath);
    if (route === undefined) {
      return errorDescriptorToResponse(
        notFound(`no route for ${httpRequest.method} ${url.pathname}`),
        guessProtocol(url.pathname),
      );
    }
    if (route.kind === "models") {
      if (httpRequest.method !== "GET" || models === undefined) {
        return errorDescriptorToResponse(
          notFound(`no route for ${httpRequest.method} ${url.pathname}`),
          "chat-completions",
        );
      }
      const list = buildModelList(await models(), httpRequest.headers.has("anthropic-version"));
      return new Response(JSON.stringify(list), { headers: { "content-type": "application/json" } });
    }
    const adapter = PROTOCOL_ADAPTERS[route.protocol];
    if (httpRequest.method !== "POST") {
      const response = errorDescriptorToResponse(
        {
          ...notFound(`${httpRequest.method} is not supported on ${url.pathname}; use POST`),
          status: 405,
          type: "invalid_request_error",
          code: "method_not_allowed",
        },
        adapter.protocol,
      );
      response.headers.set("allow", "POST");
      return response;
    }
    return handleGeneration(httpRequest, adapter);
  };

  async function handleGeneration(httpRequest: Request, adapter: ProtocolAdapter): Promise<Response> {
    const { protocol } = adapter;
    let sessionId: string | undefined;
    let stream = false;
    const end = (descriptor: ErrorDescriptor | undefined, error?: unknown): void => {
      onRequestEnd?.({
        protocol,
        sessionId,
        stream,
        status: descriptor?.status ?? 200,
        ...(error !== undefined ? { error } : {}),
      });
    };
    const fail = (error: unknown): Response => {
      const descriptor = httpRequest.signal.aborted ? clientDisconnect() : describeError(error, protocol);
      end(descriptor, error);
      return errorDescriptorToResponse(descriptor, protocol);
    };

    let request: CanonicalRequest;
    try {
      const credential = readCredential(httpRequest.headers);
      if ("problem" in credential) {
        throw new ProtocolError({ status: 401, code: "authentication_error", message: credential.problem });
      }
      sessionId = credential.sessionId;
      // The credential is checked before the body is read: an unknown caller cannot make the gateway
      // buffer or parse anything.
      if (authenticate !== undefined && !(await authenticate(sessionId))) {
        throw new ProtocolError({
          status: 404,
          type: "not_found_error",
          code: "session_discarded",
          message: "session not found or already closed",
        });
      }
      const body = await readJsonBody(httpRequest, { maxBytes: maxRequestBytes, maxDepth: maxJsonDepth });
      const converted = adapter.convertRequest(body);
      request = converted.request;
      stream = request.stream;
      for (const warning of converted.warnings) onWarning?.(warning, { protocol, sessionId });
    } catch (error) {
      return fail(error);
    }

    const abort = new AbortController();
    const onClientAbort = () => abort.abort(httpRequest.signal.reason);
    httpRequest.signal.addEventListener("abort", onClientAbort, { once: true });
    if (httpRequest.signal.aborted) onClientAbort();
    const context: ResponseContext = {
      id: createId(adapter.idPrefix),
      model: request.model ?? defaultModel,
      created: Math.floor(now() / 1000),
      createId,
    };
    const generation = invoke(() => generate({ protocol, sessionId, request, signal: abort.signal }));

    if (!request.stream) {
      try {
        const turn = await generation;
        if (httpRequest.signal.aborted) return fail(undefined);
        const { json } = adapter.buildReply({ turn, request, context });
        end(undefined);
        return new Response(JSON.stringify(json), { headers: { "content-type": "application/json" } });
      } catch (error) {
        return fail(error);
      } finally {
        httpRequest.signal.removeEventListener("abort", onClientAbort);
      }
    }

    let cancelled = false;
    const terminal = generation
      .then((turn) => {
        const text = formatSseEvents(adapter.buildReply({ turn, request, context }).events());
        end(cancelled ? clientDisconnect() : undefined);
        return text;
      })
      .catch((error: unknown) => {
        const descriptor =
          cancelled || httpRequest.signal.aborted ? clientDisconnect() : describeError(error, protocol);
        end(descriptor, error);
        return formatSseEvents(adapter.buildErrorEvents({ descriptor, request, context }));
      })
      .finally(() => httpRequest.signal.removeEventListener("abort", onClientAbort));
    const body = createBufferedSseBody({
      connectedFrame: adapter.connectedFrame,
      heartbeatFrame: adapter.heartbeatFrame,
      heartbeatMs,
      terminal,
      onCancel: () => {
        cancelled = true;
        abort.abort(new DOMException("client disconnected", "AbortError"));
      },
    });
    return new Response(body, { status: 200, headers: SSE_HEADERS });
  }
}

/** Runs `fn`, turning a synchronous throw into a rejected promise. */
function invoke<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}

function notFound(message: string): ErrorDescriptor {
  return { status: 404, type: "not_found_error", code: "not_found", param: null, message, retryable: false };
}
