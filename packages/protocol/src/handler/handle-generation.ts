import type { AssistantTurn } from "@relax/chat";
import { clientDisconnect, describeError, type ErrorDescriptor } from "../errors/describe-error";
import type { ConversationHistory } from "../shared/conversation-history";
import { locateImageParts, type WireImage } from "../shared/locate-image-parts";
import type { ConvertedRequest, Protocol } from "../shared/protocol";
import type { ResponseContext } from "../shared/response-context";
import { createBufferedSseBody } from "../sse/create-buffered-sse-body";
import { formatSseEvents } from "../sse/format-sse-frame";
import { SSE_HEADERS } from "../sse/sse-headers";
import { authenticateRequest } from "./authenticate-request";
import type { GenerateContext, HandlerSettings } from "./handler-options";
import type { ProtocolAdapter } from "./protocol-adapters";
import { readSessionBody } from "./refusal-backoff";
import { errorDescriptorToResponse } from "./to-error-response";

/**
 * Serves one generation request of `adapter`'s protocol: {@link readGenerationRequest} (credential,
 * body, projection), {@link startGeneration} (`generate`, aborted when the client leaves), then the
 * JSON reply ({@link answerJson}) or the buffered SSE stream ({@link answerStream}). Every error is
 * answered in the protocol's format and reported once to `settings.onRequestEnd`.
 */
export async function handleGeneration(
  httpRequest: Request,
  adapter: ProtocolAdapter,
  settings: HandlerSettings,
): Promise<Response> {
  const report = createGenerationReport(httpRequest, adapter.protocol, settings.onRequestEnd);
  let read: GenerationRequest;
  try {
    read = await readGenerationRequest(httpRequest, adapter, settings, report);
  } catch (error) {
    return report.fail(error);
  }
  const started = startGeneration(httpRequest, adapter, settings, read);
  return read.converted.request.stream
    ? answerStream(httpRequest, adapter, settings, read, started, report)
    : answerJson(httpRequest, adapter, read, started, report);
}

/**
 * The `onRequestEnd` report of one generation request. `sessionId` and `stream` are filled in as the
 * request is read, so a failure reports what was known by then.
 */
export interface GenerationReport {
  sessionId: string | undefined;
  stream: boolean;
  /** Reports the end: success without a descriptor (status 200), else the descriptor's status and message. */
  end(descriptor: ErrorDescriptor | undefined, error?: unknown): void;
  /** Reports and renders a failure (499 `client_disconnect` once the client has gone, whatever `error` is). */
  fail(error: unknown): Response;
}

/** A {@link GenerationReport} of `httpRequest`, in `protocol`'s error format. */
export function createGenerationReport(
  httpRequest: Request,
  protocol: Protocol,
  onRequestEnd: HandlerSettings["onRequestEnd"],
): GenerationReport {
  const path = new URL(httpRequest.url).pathname;
  const report: GenerationReport = {
    sessionId: undefined,
    stream: false,
    end(descriptor, error) {
      onRequestEnd?.({
        protocol,
        sessionId: report.sessionId,
        stream: report.stream,
        status: descriptor?.status ?? 200,
        path,
        ...(descriptor !== undefined ? { message: descriptor.message } : {}),
        ...(error !== undefined ? { error } : {}),
      });
    },
    fail(error) {
      const descriptor = httpRequest.signal.aborted ? clientDisconnect() : describeError(error, protocol);
      report.end(descriptor, error);
      return errorDescriptorToResponse(descriptor, protocol);
    },
  };
  return report;
}

/** A generation request read and projected: what {@link startGeneration} needs. */
export interface GenerationRequest {
  sessionId: string;
  /** The session's committed replies, when the server keeps them. */
  history: ConversationHistory | undefined;
  /** The parsed JSON body (for locating images by their wire path). */
  rawBody: unknown;
  converted: ConvertedRequest;
}

/**
 * Authenticates (before the body is read), reads the body within the size and depth limits, projects
 * it to the canonical request and reports its warnings; fills in `report.sessionId` and `report.stream`.
 *
 * @throws ProtocolError 401 / 404 / 413 and CanonicalizationError (400), as the handler documents.
 */
export async function readGenerationRequest(
  httpRequest: Request,
  adapter: ProtocolAdapter,
  settings: HandlerSettings,
  report: Pick<GenerationReport, "sessionId" | "stream">,
): Promise<GenerationRequest> {
  const { protocol } = adapter;
  const { normalizers } = settings;
  const auth = await authenticateRequest(httpRequest, settings);
  report.sessionId = auth.sessionId;
  const rawBody = await readSessionBody(httpRequest, auth.sessionId, settings.backoff, {
    maxBytes: settings.maxRequestBytes,
    maxDepth: settings.maxJsonDepth,
    protocol,
    limits: settings.requestLimits,
  });
  const converted = adapter.convertRequest(rawBody, {
    ...(normalizers !== undefined ? { normalizers } : {}),
    ...(auth.history !== undefined ? { history: auth.history } : {}),
  });
  report.stream = converted.request.stream;
  for (const warning of converted.warnings) {
    settings.onWarning?.(warning, { protocol, sessionId: auth.sessionId });
  }
  return { sessionId: auth.sessionId, history: auth.history, rawBody, converted };
}

/** A running `generate` call and what answering it needs. */
export interface StartedGeneration {
  /** The turn, or the error `generate` threw or rejected with. */
  generation: Promise<AssistantTurn>;
  context: ResponseContext;
  /** Aborts the signal `generate` received (the client left, or the stream reader cancelled). */
  abort: AbortController;
  /** Stops following the client's signal; call once the answer is settled. */
  detach: () => void;
}

/**
 * Calls `settings.generate` with the canonical request, an abort signal that follows the client's
 * (already aborted when the client is gone), the HTTP path and headers without the credential, and an
 * `imagePath` lookup into the body.
 */
export function startGeneration(
  httpRequest: Request,
  adapter: ProtocolAdapter,
  settings: HandlerSettings,
  read: GenerationRequest,
): StartedGeneration {
  const { protocol } = adapter;
  const { request, responseFormat } = read.converted;
  const abort = new AbortController();
  const onClientAbort = () => abort.abort(httpRequest.signal.reason);
  httpRequest.signal.addEventListener("abort", onClientAbort, { once: true });
  if (httpRequest.signal.aborted) onClientAbort();
  const context: ResponseContext = {
    id: settings.createId(adapter.idPrefix),
    model: request.model ?? settings.defaultModel,
    created: Math.floor(settings.now() / 1000),
    createId: settings.createId,
  };
  let images: WireImage[] | undefined;
  const generateContext: GenerateContext = {
    protocol,
    sessionId: read.sessionId,
    request,
    signal: abort.signal,
    http: httpContext(httpRequest),
    imagePath: (index, url) => {
      images ??= locateImageParts(protocol, read.rawBody);
      const found = images[index];
      return found !== undefined && found.url === url ? found.path : undefined;
    },
    ...(responseFormat !== undefined ? { responseFormat } : {}),
  };
  return {
    generation: invoke(() => settings.generate(generateContext)),
    context,
    abort,
    detach: () => httpRequest.signal.removeEventListener("abort", onClientAbort),
  };
}

/**
 * The request's path and headers for `generate`. The credential headers stay out: request
 * classification never needs them, and nothing downstream may log or record a credential.
 */
export function httpContext(httpRequest: Request): { path: string; headers: Record<string, string> } {
  return {
    path: new URL(httpRequest.url).pathname,
    headers: Object.fromEntries(
      [...httpRequest.headers].filter(([name]) => name !== "authorization" && name !== "x-api-key"),
    ),
  };
}

/** Records a reply sent in the session's history, when the request continues a stored conversation. */
export function rememberReply(
  read: GenerationRequest,
  protocol: Protocol,
  context: ResponseContext,
  turn: AssistantTurn,
  json: unknown,
): void {
  const { continuation, request } = read.converted;
  if (read.history === undefined || continuation === undefined) return;
  read.history.record(
    {
      id: context.id,
      messages: [...continuation.messages, turn.message],
      ...(continuation.system !== undefined ? { system: continuation.system } : {}),
      tools: request.tools,
      chatTemplateKwargs: request.chatTemplateKwargs,
    },
    protocol === "responses" ? (json as { output: { id: string }[] }).output : [],
  );
}

/** Waits for the turn and answers it as the protocol's JSON reply (499 when the client left meanwhile). */
export async function answerJson(
  httpRequest: Request,
  adapter: ProtocolAdapter,
  read: GenerationRequest,
  started: StartedGeneration,
  report: GenerationReport,
): Promise<Response> {
  const { request, reply } = read.converted;
  try {
    const turn = await started.generation;
    if (httpRequest.signal.aborted) return report.fail(undefined);
    const { json } = adapter.buildReply({
      turn,
      request,
      context: started.context,
      ...(reply ? { reply } : {}),
    });
    rememberReply(read, adapter.protocol, started.context, turn, json);
    report.end(undefined);
    return new Response(JSON.stringify(json), { headers: { "content-type": "application/json" } });
  } catch (error) {
    return report.fail(error);
  } finally {
    started.detach();
  }
}

/**
 * Answers with a buffered SSE stream at once (status 200): the connected frame, heartbeats while
 * generating, then the protocol's full terminal sequence, or its in-stream error events. A reader that
 * cancels aborts the generation and is reported as 499.
 */
export function answerStream(
  httpRequest: Request,
  adapter: ProtocolAdapter,
  settings: Pick<HandlerSettings, "heartbeatMs">,
  read: GenerationRequest,
  started: StartedGeneration,
  report: GenerationReport,
): Response {
  const { protocol } = adapter;
  const { request, reply } = read.converted;
  const { context } = started;
  let cancelled = false;
  const terminal = started.generation
    .then((turn) => {
      const built = adapter.buildReply({ turn, request, context, ...(reply ? { reply } : {}) });
      const text = formatSseEvents(built.events());
      if (!cancelled) rememberReply(read, protocol, context, turn, built.json);
      report.end(cancelled ? clientDisconnect() : undefined);
      return text;
    })
    .catch((error: unknown) => {
      const descriptor =
        cancelled || httpRequest.signal.aborted ? clientDisconnect() : describeError(error, protocol);
      report.end(descriptor, error);
      return formatSseEvents(
        adapter.buildErrorEvents({ descriptor, request, context, ...(reply ? { reply } : {}) }),
      );
    })
    .finally(started.detach);
  const body = createBufferedSseBody({
    connectedFrame: adapter.connectedFrame,
    heartbeatFrame: adapter.heartbeatFrame,
    heartbeatMs: settings.heartbeatMs,
    terminal,
    onCancel: () => {
      cancelled = true;
      started.abort.abort(new DOMException("client disconnected", "AbortError"));
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

/** Runs `fn`, turning a synchronous throw into a rejected promise. */
function invoke<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}
