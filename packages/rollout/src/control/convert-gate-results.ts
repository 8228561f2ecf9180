import {
  type GateCounts,
  GatePauseCancelledError,
  type GatePauseResult,
  GatePauseTimeoutError,
  type GateResumeResult,
} from "@relax/agent-api";
import { ControlError } from "./control-error";
import type { PauseResponse, ResumeResponse, StatusResponse } from "./control-schemas";

/** {@link GatePauseResult} in the wire spelling of `POST /rollout/v1/pause`. */
export function convertGatePauseResult(result: GatePauseResult): PauseResponse {
  return {
    state: "paused",
    aborted_requests: result.abortedRequests,
    held_requests: result.heldRequests,
    quiescent_ms: Math.round(result.quiescentMs * 1000) / 1000,
  };
}

/**
 * {@link GateResumeResult} in the wire spelling of `POST /rollout/v1/resume`; `stepRunning` gives the
 * `state` (`running` while a step runs, else `idle`).
 */
export function convertGateResumeResult(result: GateResumeResult, stepRunning: boolean): ResumeResponse {
  return {
    state: stepRunning ? "running" : "idle",
    resumed_requests: result.resumedRequests,
    weight_version: result.weightVersion ?? null,
  };
}

/** {@link GateCounts} as the `in_flight` object of `GET /rollout/v1/status`. */
export function convertGateCounts(counts: GateCounts): StatusResponse["in_flight"] {
  return { generating: counts.generating, held: counts.held, aborted_partials: counts.abortedPartials };
}

/**
 * A gate failure as the control API answers it: a pause timeout is 504 `pause_timeout`, a pause that a
 * resume cancelled is 409 `pause_cancelled`; anything else is returned unchanged.
 */
export function convertGateError(error: unknown): unknown {
  if (GatePauseTimeoutError.isInstance(error)) {
    return new ControlError({ code: "pause_timeout", message: error.message, cause: error });
  }
  if (GatePauseCancelledError.isInstance(error)) {
    return new ControlError({ code: "pause_cancelled", message: error.message, cause: error });
  }
  return error;
}
