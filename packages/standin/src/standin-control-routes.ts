import type { ServerResponse } from "node:http";
import {
  abortRequestSchema,
  closeSessionRequestSchema,
  openSessionRequestSchema,
  pauseGenerationRequestSchema,
  updateWeightsFromDiskRequestSchema,
  updateWeightVersionRequestSchema,
} from "@relax/sglang/internal";
import type { StandinEngineState } from "./standin-engine-state";
import { parseOrThrow, sendError, sendJson } from "./standin-http";

/**
 * SGLang's control routes take typed bodies: a required field that is missing (or not a string) gets
 * FastAPI's 422 `{"detail":[{type, loc, msg, input}]}`. Returns whether it answered.
 */
export function requireStringField(
  body: unknown,
  field: string,
  response: ServerResponse,
  { allowNumber = false }: { allowNumber?: boolean } = {},
): boolean {
  const record = typeof body === "object" && body !== null && !Array.isArray(body) ? body : undefined;
  const present = record !== undefined && field in record;
  const value = present ? (record as Record<string, unknown>)[field] : undefined;
  if (typeof value === "string" || (allowNumber && typeof value === "number")) return false;
  sendJson(response, 422, {
    detail: [
      {
        type: present ? "string_type" : "missing",
        loc: ["body", field],
        msg: present ? "Input should be a valid string" : "Field required",
        input: present ? value : (body ?? null),
      },
    ],
  });
  return true;
}

/**
 * `/update_weights_from_disk`, label only: the stand-in has no weights, so a successful update changes
 * `weight_version` (when given) and flushes the prefix cache (unless `flush_cache: false`). As in SGLang:
 * `abort_all_requests: true` aborts everything in flight first; without a pause the update waits for
 * the requests in flight to finish; `success: false` answers come with HTTP 400.
 */
export async function updateWeightsFromDisk(
  { scheduler }: StandinEngineState,
  body: unknown,
  response: ServerResponse,
): Promise<void> {
  if (requireStringField(body, "model_path", response)) return;
  const update = parseOrThrow(updateWeightsFromDiskRequestSchema, body);
  const refuse = (message: string) =>
    sendJson(response, 400, { success: false, message, num_paused_requests: 0 });
  if (update.model_path!.trim() === "") {
    return refuse("Failed to update weights: model_path is empty (stand-in: nothing to load).");
  }
  if (update.abort_all_requests) scheduler.abort({ all: true });
  // Aborted requests end on their next step; without a pause, SGLang's update waits for in-flight work.
  if (scheduler.paused === false) await scheduler.drain();
  else await scheduler.drainAborted();
  const flush = update.flush_cache ?? true;
  if (flush && scheduler.busy > 0) {
    // SGLang flushes after loading and asserts the flush worked; the stand-in refuses up front instead,
    // changing nothing, so the caller sees why (requests paused in place or retracted hold the cache).
    return refuse(
      `Cache flush failed after updating weights: ${scheduler.busy} requests are paused in place or waiting; ` +
        "send flush_cache: false while generation is paused with mode in_place or retract.",
    );
  }
  if (update.weight_version != null) scheduler.weightVersion = update.weight_version;
  if (flush) scheduler.flushCache({ force: true });
  return sendJson(response, 200, {
    success: true,
    message: "Succeeded to update model weights. (stand-in: only the weight version label changed)",
    num_paused_requests: 0,
  });
}

/**
 * `/update_weight_version`: relabels the weights (`new_version`, a string or number) after aborting
 * everything in flight unless `abort_all_requests: false`.
 */
export function updateWeightVersion(
  { scheduler }: StandinEngineState,
  body: unknown,
  response: ServerResponse,
): void {
  if (requireStringField(body, "new_version", response, { allowNumber: true })) return;
  const update = parseOrThrow(updateWeightVersionRequestSchema, body);
  if (update.abort_all_requests ?? true) scheduler.abort({ all: true });
  scheduler.weightVersion = update.new_version;
  sendJson(response, 200, {
    success: true,
    message: `Weight version updated to ${update.new_version}`,
    new_version: update.new_version,
  });
}

/**
 * Serves SGLang's control routes: `/abort_request`, `/pause_generation`, `/continue_generation`,
 * `/update_weights_from_disk`, `/update_weight_version` and `/flush_cache`. Returns `false` for any other
 * path (nothing sent).
 * @throws HttpProblem for a body its schema refuses.
 */
export async function handleControlRoute(
  state: StandinEngineState,
  path: string,
  body: unknown,
  response: ServerResponse,
): Promise<boolean> {
  const { scheduler } = state;
  switch (path) {
    case "/abort_request": {
      const abort = parseOrThrow(abortRequestSchema, body);
      scheduler.abort({ ridPrefix: abort.rid ?? undefined, all: abort.abort_all ?? false });
      response.writeHead(200, { "content-length": 0 });
      response.end();
      return true;
    }
    case "/pause_generation": {
      const pause = parseOrThrow(pauseGenerationRequestSchema, body);
      scheduler.pause(pause.mode ?? "abort");
      sendJson(response, 200, { message: "Generation paused successfully.", status: "ok" });
      return true;
    }
    case "/open_session": {
      // SGLang: the new session's id as a JSON string; an id that is already open is an error.
      const open = parseOrThrow(openSessionRequestSchema, body);
      const id = state.sessions.open(open.session_id ?? undefined);
      if (id === undefined) {
        sendError(
          response,
          400,
          "Failed to open the session. Check if a session with the same id is still open.",
        );
      } else sendJson(response, 200, id);
      return true;
    }
    case "/close_session":
      state.sessions.close(parseOrThrow(closeSessionRequestSchema, body).session_id);
      response.writeHead(200, { "content-length": 0 });
      response.end();
      return true;
    case "/continue_generation":
      scheduler.resume();
      sendJson(response, 200, { message: "Generation continued successfully.", status: "ok" });
      return true;
    case "/update_weights_from_disk":
      await updateWeightsFromDisk(state, body, response);
      return true;
    case "/update_weight_version":
      updateWeightVersion(state, body, response);
      return true;
    case "/flush_cache":
      if (!scheduler.flushCache()) {
        sendError(response, 400, "Cache not flushed because there are pending requests.");
        return true;
      }
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      response.end("Cache flushed.\n");
      return true;
    default:
      return false;
  }
}
