import type { GatePauseResult, GateResumeResult } from "../service/generation-gate";
import type { PauseResponse, ResumeResponse } from "./control-schemas";

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
