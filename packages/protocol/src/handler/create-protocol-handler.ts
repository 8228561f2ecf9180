import { type AssistantTurn, CanonicalizationError, type CanonicalRequest } from "@relax/chat";
import { convertAnthropicMessagesRequest } from "../anthropic-messages/convert-anthropic-messages-request";
import { clientDisconnect, describeError, type ErrorDescriptor } from "../errors/describe-error";
import { ProtocolError } from "../errors/protocol-error";
import { errorDescriptorToResponse } from "../errors/to-error-response";
import type { ConversationHistory } from "../shared/conversation-history";
import { createDefaultId } from "../shared/create-default-id";
import type { HarnessNormalizers } from "../shared/harness-normalizers";
import { locateImageParts, type WireImage } from "../shared/locate-image-parts";
import type { ConvertedRequest, Protocol, ProtocolWarning } from "../shared/protocol";
import type { ResponseFormatConstraint } from "../shared/read-response-format";
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
  /** The structured-output format the request asked for, if any (honoured only if the engine is told to). */
  responseFormat?: ResponseFormatConstraint;
  /**
   * The HTTP request's URL path (query string dropped) and headers (names lower-case), for request
   * classification (title, compaction, sub-agent requests of known harnesses); `authorization` and
   * `x-api-key` (the credential) are left out.
   */
  http?: { path: string; headers: Record<string, string> };
  /**
   * The request field of the `index`-th image of `request.messages` (document order, counting every
   * `image_url` part), in the protocol's terms (`input[2].output[0]`, `messages[1].content[0].content[1]`),
   * when the body's image there has the same `url`; else `undefined`. For naming an image in a 400.
   */
  imagePath: (index: number, url: string) => string | undefined;
}

/**
 * Reported once per generation or `count_tokens` request when its reply is complete (or the client went
 * away), and for every route-level refusal (no route, wrong method, `/responses/compact`).
 */
export interface RequestEndEvent {
  protocol: Protocol;
  sessionId?: string;
  stream: boolean;
  /** The HTTP status, or for a stream the status its terminal sequence stands for (499 when the client left). */
  status: number;
  /** The request path (query string removed), e.g. `/agentic_api/v1/messages`. */
  path: string;
  /** For a status ≥ 400, the error message sent to the client. */
  message?: string;
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
  /** Harness normalisers to switch off (see {@link HarnessNormalizers}); unset ones are on. */
  normalizers?: Partial<HarnessNormalizers>;
  /**
   * The session's committed replies, for `previous_response_id`, `item_reference` and Anthropic
   * `thread` (resolved against it) and for recording each reply sent. Without it (or `undefined` for a
   * session) those fields are a 400.
   */
  history?: (sessionId: string) => ConversationHistory | undefined;
  /**
   * Counts the prompt tokens of a request under the chat template, for `POST /v1/messages/count_tokens`
   * (answered `{input_tokens}`); without it that path is 404.
   */
  countTokens?: (request: CanonicalRequest) => number | Promise<number>;
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
    normalizers,
    history,
    countTokens,
    maxRequestBytes = DEFAULT_MAX_REQUEST_BYTES,
    maxJsonDepth = DEFAULT_MAX_JSON_DEPTH,
  } = options;

  return async (httpRequest) => {
    const url = new URL(httpRequest.url);
    const route = matchRoute(url.pathname, basePath);
    // A route-level refusal (no route, wrong method, unsupported endpoint) is reported like any other.
    const refuse = (descriptor: ErrorDescriptor, protocol: Protocol): Response => {
      const credential = readCredential(httpRequest.headers);
      onRequestEnd?.({
        protocol,
        ...("sessionId" in credential ? { sessionId: credential.sessionId } : {}),
        stream: false,
        status: descriptor.status,
        path: url.pathname,
        message: descriptor.message,
      });
      return errorDescriptorToResponse(descriptor, protocol);
    };
    if (route === undefined) {
      return refuse(
        notFound(`no route for ${httpRequest.method} ${url.pathname}`),
        guessProtocol(url.pathname),
      );
    }
    if (route.kind === "root") {
      if (httpRequest.method === "GET" || httpRequest.method === "HEAD") {
        return new Response(httpRequest.method === "HEAD" ? null : JSON.stringify({ status: "ok" }), {
          headers: { "content-type": "application/json" },
        });
      }
      return refuse(notFound(`no route for ${httpRequest.method} ${url.pathname}`), "chat-completions");
    }
    if (route.kind === "compact") {
      return refuse(
        {
          status: 501,
          type: "invalid_request_error",
          code: "unsupported_endpoint",
          param: null,
          message:
            "/responses/compact is not supported: Relax trains on the conversation the agent sends, so it cannot replace history by an opaque compacted item; let the agent compact locally (a summarising /responses request)",
          retryable: false,
        },
        "responses",
      );
    }
    if (route.kind === "count-tokens") {
      if (httpRequest.method !== "POST" || countTokens === undefined) {
        return refuse(notFound(`no route for ${httpRequest.method} ${url.pathname}`), "anthropic-messages");
      }
      return handleCountTokens(httpRequest, countTokens);
    }
    if (route.kind === "models") {
      if (httpRequest.method !== "GET" || models === undefined) {
        return refuse(notFound(`no route for ${httpRequest.method} ${url.pathname}`), "chat-completions");
      }
      const list = buildModelList(await models(), httpRequest.headers.has("anthropic-version"));
      return new Response(JSON.stringify(list), { headers: { "content-type": "application/json" } });
    }
    const adapter = PROTOCOL_ADAPTERS[route.protocol];
    if (httpRequest.method !== "POST") {
      const response = refuse(
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

  async function authenticateRequest(
    httpRequest: Request,
  ): Promise<{ sessionId: string; history: ConversationHistory | undefined }> {
    const credential = readCredential(httpRequest.headers);
    if ("problem" in credential) {
      throw new ProtocolError({ status: 401, code: "authentication_error", message: credential.problem });
    }
    // The credential is checked before the body is read: an unknown caller cannot make the gateway
    // buffer or parse anything.
    await requireLiveSession(credential.sessionId);
    return { sessionId: credential.sessionId, history: history?.(credential.sessionId) };
  }

  async function requireLiveSession(sessionId: string): Promise<void> {
    if (authenticate !== undefined && !(await authenticate(sessionId))) {
      throw new ProtocolError({
        status: 404,
        type: "not_found_error",
        code: "session_discarded",
        message: "session not found or already closed",
      });
    }
  }

  async function handleCountTokens(
    httpRequest: Request,
    count: (request: CanonicalRequest) => number | Promise<number>,
  ): Promise<Response> {
    const protocol = "anthropic-messages";
    const path = new URL(httpRequest.url).pathname;
    let sessionId: string | undefined;
    try {
      const auth = await authenticateRequest(httpRequest);
      sessionId = auth.sessionId;
      const body = await readJsonBody(httpRequest, { maxBytes: maxRequestBytes, maxDepth: maxJsonDepth });
      const converted = convertAnthropicMessagesRequest(body, {
        countTokens: true,
        ...(normalizers !== undefined ? { normalizers } : {}),
        ...(auth.history !== undefined ? { history: auth.history } : {}),
      });
      const inputTokens = await count(converted.request);
      onRequestEnd?.({ protocol, sessionId, stream: false, status: 200, path });
      return new Response(JSON.stringify({ input_tokens: inputTokens }), {
        headers: { "content-type": "application/json" },
      });
    } catch (error) {
      const descriptor = describeError(error, protocol);
      onRequestEnd?.({
        protocol,
        sessionId,
        stream: false,
        status: descriptor.status,
        path,
        message: descriptor.message,
        error,
      });
      return errorDescriptorToResponse(descriptor, protocol);
    }
  }

  async function handleGeneration(httpRequest: Request, adapter: ProtocolAdapter): Promise<Response> {
    const { protocol } = adapter;
    const path = new URL(httpRequest.url).pathname;
    let sessionId: string | undefined;
    let stream = false;
    const end = (descriptor: ErrorDescriptor | undefined, error?: unknown): void => {
      onRequestEnd?.({
        protocol,
        sessionId,
        stream,
        status: descriptor?.status ?? 200,
        path,
        ...(descriptor !== undefined ? { message: descriptor.message } : {}),
        ...(error !== undefined ? { error } : {}),
      });
    };
    const fail = (error: unknown): Response => {
      const descriptor = httpRequest.signal.aborted ? clientDisconnect() : describeError(error, protocol);
      end(descriptor, error);
      return errorDescriptorToResponse(descriptor, protocol);
    };

    let request: CanonicalRequest;
    let converted: ConvertedRequest;
    let sessionHistory: ConversationHistory | undefined;
    let rawBody: unknown;
    try {
      const auth = await authenticateRequest(httpRequest);
      sessionId = auth.sessionId;
      sessionHistory = auth.history;
      rawBody = await readJsonBody(httpRequest, { maxBytes: maxRequestBytes, maxDepth: maxJsonDepth });
      converted = adapter.convertRequest(rawBody, {
        ...(normalizers !== undefined ? { normalizers } : {}),
        ...(sessionHistory !== undefined ? { history: sessionHistory } : {}),
      });
      request = converted.request;
      stream = request.stream;
      for (const warning of converted.warnings) onWarning?.(warning, { protocol, sessionId });
    } catch (error) {
      return fail(error);
    }
    const { reply } = converted;
    const remember = (turn: AssistantTurn, json: unknown): void => {
      if (sessionHistory === undefined || converted.continuation === undefined) return;
      const { continuation } = converted;
      sessionHistory.record(
        {
          id: context.id,
          messages: [...continuation.messages, turn.message],
          ...(continuation.system !== undefined ? { system: continuation.system } : {}),
          tools: request.tools,
          chatTemplateKwargs: request.chatTemplateKwargs,
        },
        protocol === "responses" ? (json as { output: { id: string }[] }).output : [],
      );
    };

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
    // The credential headers stay here: request classification never needs them, and nothing downstream
    // may log or record a credential.
    const http = {
      path,
      headers: Object.fromEntries(
        [...httpRequest.headers].filter(([name]) => name !== "authorization" && name !== "x-api-key"),
      ),
    };
    let images: WireImage[] | undefined;
    const imagePath = (index: number, url: string) => {
      images ??= locateImageParts(protocol, rawBody);
      const found = images[index];
      return found !== undefined && found.url === url ? found.path : undefined;
    };
    const generation = invoke(() =>
      generate({
        protocol,
        sessionId,
        request,
        signal: abort.signal,
        http,
        imagePath,
        ...(converted.responseFormat !== undefined ? { responseFormat: converted.responseFormat } : {}),
      }),
    );

    if (!request.stream) {
      try {
        const turn = await generation;
        if (httpRequest.signal.aborted) return fail(undefined);
        const { json } = adapter.buildReply({ turn, request, context, ...(reply ? { reply } : {}) });
        remember(turn, json);
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
        const built = adapter.buildReply({ turn, request, context, ...(reply ? { reply } : {}) });
        const text = formatSseEvents(built.events());
        if (!cancelled) remember(turn, built.json);
        end(cancelled ? clientDisconnect() : undefined);
        return text;
      })
      .catch((error: unknown) => {
        const descriptor =
          cancelled || httpRequest.signal.aborted ? clientDisconnect() : describeError(error, protocol);
        end(descriptor, error);
        return formatSseEvents(
          adapter.buildErrorEvents({ descriptor, request, context, ...(reply ? { reply } : {}) }),
        );
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
