import type { IncomingMessage, ServerResponse } from "node:http";
import { type StandinEngineState, startStandinOutage } from "./standin-engine-state";
import type { StandinFault, StandinFaultRule } from "./standin-faults";
import { HttpProblem, sendJson } from "./standin-http";

/**
 * Applies an injected fault before the request is routed: an `http-error` answers its status, a `hang`
 * never answers, a `reset` destroys the socket. Returns whether the request is done with;
 * `reset-after-tokens` returns `false` (`/generate` applies it while streaming).
 */
export function applyFault(fault: StandinFault, request: IncomingMessage, response: ServerResponse): boolean {
  switch (fault.type) {
    case "http-error":
      sendJson(
        response,
        fault.status,
        fault.body ?? { error: { message: `stand-in injected fault (HTTP ${fault.status})` } },
        fault.headers,
      );
      return true;
    case "hang":
      return true;
    case "reset":
      request.socket.destroy();
      return true;
    case "reset-after-tokens":
      return false;
    default:
      return false;
  }
}

/**
 * The fields of a `/standin/*` control body.
 * @throws HttpProblem (400) for a field not in `fields`, or a `duration_ms` that is not a number >= 0.
 */
export function readKnob(body: unknown, fields: string[]): { duration_ms?: number; mode?: string } {
  const record = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!fields.includes(key))
      throw new HttpProblem(400, `${key}: unknown field (expected ${fields.join(", ")})`);
  }
  const duration = record.duration_ms;
  if (duration !== undefined && (typeof duration !== "number" || !(duration >= 0)))
    throw new HttpProblem(400, "duration_ms: must be a number of milliseconds >= 0");
  return {
    ...(duration !== undefined ? { duration_ms: duration as number } : {}),
    ...(typeof record.mode === "string" ? { mode: record.mode } : {}),
  };
}

/**
 * Serves the stand-in's own test controls (not SGLang routes), for a stand-in in its own process:
 * `/standin/outage` (`{mode?: "refuse" | "http-503", duration_ms?}`, started once the answer is sent),
 * `/standin/stall` (`{duration_ms?}`), `/standin/end_stall` and `/standin/faults` (a fault rule). Returns
 * `false` for any other path (nothing sent).
 * @throws HttpProblem (400) for a body it refuses.
 */
export function handleFaultRoute(
  state: StandinEngineState,
  path: string,
  body: unknown,
  response: ServerResponse,
): boolean {
  switch (path) {
    case "/standin/outage": {
      const knob = readKnob(body, ["duration_ms", "mode"]);
      const mode = knob.mode ?? "refuse";
      if (mode !== "refuse" && mode !== "http-503")
        throw new HttpProblem(400, 'mode: must be "refuse" or "http-503"');
      sendJson(response, 200, { status: "ok" });
      response.once("finish", () =>
        startStandinOutage(state, {
          mode,
          ...(knob.duration_ms !== undefined ? { durationMs: Number(knob.duration_ms) } : {}),
        }),
      );
      return true;
    }
    case "/standin/stall": {
      const knob = readKnob(body, ["duration_ms"]);
      state.outage.startStall(knob.duration_ms !== undefined ? { durationMs: Number(knob.duration_ms) } : {});
      sendJson(response, 200, { status: "ok" });
      return true;
    }
    case "/standin/end_stall":
      state.outage.endStall();
      sendJson(response, 200, { status: "ok" });
      return true;
    case "/standin/faults": {
      const rule = body as StandinFaultRule;
      if (typeof rule !== "object" || rule === null || typeof rule.fault?.type !== "string")
        throw new HttpProblem(400, "fault.type: required (http-error, hang, reset, reset-after-tokens)");
      state.faults.add(rule);
      sendJson(response, 200, { status: "ok" });
      return true;
    }
    default:
      return false;
  }
}
