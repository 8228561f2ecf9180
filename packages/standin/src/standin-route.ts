import type { IncomingMessage, ServerResponse } from "node:http";
import { handleGenerate } from "./handle-generate";
import { handleControlRoute } from "./standin-control-routes";
import type { StandinEngineState } from "./standin-engine-state";
import { applyFault, handleFaultRoute } from "./standin-fault-routes";
import { HttpProblem, lowerHeaders, readBody, sendError, sendJson } from "./standin-http";
import { handleInfoRoute } from "./standin-info-routes";

/** Parses a request body: the JSON value, the raw text when it is not JSON, `undefined` when empty. */
export function parseStandinBody(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Serves one request: reads and records it (`state.calls`), then answers as an engine that is down
 * (`refuse`: the socket is reset; `http-503`), or applies an injected fault, or refuses a body that is
 * not JSON (400, GET aside), or routes it to `/generate`, a control, info or `/standin/*` route; a path
 * none serves gets 404 `{"detail":"Not Found"}`, an `HttpProblem` its status.
 * @throws any other error of a route (the request listener answers 500).
 */
export async function routeStandinRequest(
  state: StandinEngineState,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const method = (request.method ?? "GET").toUpperCase();
  const path = new URL(request.url ?? "/", "http://standin").pathname;
  const headers = lowerHeaders(request);
  const body = parseStandinBody(await readBody(request));
  state.calls.push({ method, path, headers, body, receivedAt: Date.now() });
  if (state.outage.outage === "refuse") {
    request.socket.destroy();
    return;
  }
  if (state.outage.outage === "http-503") {
    return sendError(response, 503, "stand-in outage: the engine is not ready (HTTP 503)");
  }
  const fault = state.faults.next(path);
  if (fault && applyFault(fault, request, response)) return;
  if (typeof body === "string" && method !== "GET") {
    return sendError(response, 400, `The request body is not valid JSON: ${body.slice(0, 100)}`);
  }
  try {
    if (path === "/generate" && (method === "POST" || method === "PUT")) {
      return await handleGenerate(state, { body, headers, request, response, fault });
    }
    const served =
      (await handleControlRoute(state, path, body, response)) ||
      (await handleInfoRoute(state, path, response)) ||
      handleFaultRoute(state, path, body, response);
    if (!served) sendJson(response, 404, { detail: "Not Found" });
  } catch (error) {
    if (error instanceof HttpProblem) return sendError(response, error.status, error.message);
    throw error;
  }
}

/**
 * The engine's HTTP request listener: {@link routeStandinRequest}, with a route's unexpected error
 * answered 500 (or the connection destroyed when the answer had started).
 */
export function createStandinRequestListener(
  state: StandinEngineState,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    routeStandinRequest(state, request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        sendError(
          response,
          500,
          `stand-in internal error: ${error instanceof Error ? error.message : String(error)}`,
        );
      } else response.destroy();
    });
  };
}
