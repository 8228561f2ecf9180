import type { ErrorDescriptor } from "../errors/describe-error";
import type { Protocol } from "../shared/protocol";
import { handleCountTokens } from "./handle-count-tokens";
import { handleGeneration } from "./handle-generation";
import { type HandlerSettings, type ProtocolHandlerOptions, resolveHandlerSettings } from "./handler-options";
import { buildModelList } from "./list-models";
import { guessProtocol, matchRoute } from "./match-route";
import { PROTOCOL_ADAPTERS, type ProtocolAdapter, RESPONSES_COMPACT_ADAPTER } from "./protocol-adapters";
import { readCredential } from "./read-credential";
import { methodNotAllowed, noRoute } from "./route-refusals";
import { errorDescriptorToResponse } from "./to-error-response";

export type { GenerateContext, ProtocolHandlerOptions, RequestEndEvent } from "./handler-options";

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
  const settings = resolveHandlerSettings(options);
  return (httpRequest) => routeRequest(httpRequest, settings);
}

/**
 * Answers one request by its route: the base URL (`GET`/`HEAD` 200), `/responses/compact` (a compaction
 * turn answered as OpenAI's `response.compaction`),
 * `count_tokens` and `/models` (404 when not configured or another method), a generation route (405
 * for another method than `POST`), or 404 for any other path; each refusal in the error format of the
 * path's protocol and reported to `settings.onRequestEnd`.
 */
export async function routeRequest(httpRequest: Request, settings: HandlerSettings): Promise<Response> {
  const url = new URL(httpRequest.url);
  const { method } = httpRequest;
  const route = matchRoute(url.pathname, settings.basePath);
  const refuse = (descriptor: ErrorDescriptor, protocol: Protocol) =>
    refuseRequest(httpRequest, descriptor, protocol, settings.onRequestEnd);
  if (route === undefined) return refuse(noRoute(method, url.pathname), guessProtocol(url.pathname));
  switch (route.kind) {
    case "root":
      if (method === "GET" || method === "HEAD") {
        return new Response(method === "HEAD" ? null : JSON.stringify({ status: "ok" }), {
          headers: { "content-type": "application/json" },
        });
      }
      return refuse(noRoute(method, url.pathname), "chat-completions");
    case "compact":
      return answerGeneration(httpRequest, RESPONSES_COMPACT_ADAPTER, settings, refuse);
    case "count-tokens":
      if (method !== "POST" || settings.countTokens === undefined) {
        return refuse(noRoute(method, url.pathname), "anthropic-messages");
      }
      return handleCountTokens(httpRequest, settings, settings.countTokens);
    case "models": {
      if (method !== "GET" || settings.models === undefined) {
        return refuse(noRoute(method, url.pathname), "chat-completions");
      }
      const list = buildModelList(await settings.models(), httpRequest.headers.has("anthropic-version"));
      return new Response(JSON.stringify(list), { headers: { "content-type": "application/json" } });
    }
    case "generate":
      return answerGeneration(httpRequest, PROTOCOL_ADAPTERS[route.protocol], settings, refuse);
  }
}

/** A generation route: 405 (with `allow: POST`) for another method than `POST`, else the generation. */
function answerGeneration(
  httpRequest: Request,
  adapter: ProtocolAdapter,
  settings: HandlerSettings,
  refuse: (descriptor: ErrorDescriptor, protocol: Protocol) => Response,
): Promise<Response> | Response {
  if (httpRequest.method !== "POST") {
    const response = refuse(
      methodNotAllowed(httpRequest.method, new URL(httpRequest.url).pathname),
      adapter.protocol,
    );
    response.headers.set("allow", "POST");
    return response;
  }
  return handleGeneration(httpRequest, adapter, settings);
}

/**
 * A route-level refusal (no route, wrong method, unsupported endpoint): reported like any other answer
 * (with the presented session id, when there is one) and rendered in `protocol`'s error format.
 */
export function refuseRequest(
  httpRequest: Request,
  descriptor: ErrorDescriptor,
  protocol: Protocol,
  onRequestEnd: HandlerSettings["onRequestEnd"],
): Response {
  const credential = readCredential(httpRequest.headers);
  onRequestEnd?.({
    protocol,
    ...("sessionId" in credential ? { sessionId: credential.sessionId } : {}),
    stream: false,
    status: descriptor.status,
    path: new URL(httpRequest.url).pathname,
    message: descriptor.message,
  });
  return errorDescriptorToResponse(descriptor, protocol);
}
