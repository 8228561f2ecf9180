import type { GateControl } from "@relax/agent-api";
import {
  type SglangClient,
  SglangConnectionError,
  SglangTimeoutError,
  type WeightUpdateOutcome,
} from "@relax/sglang";
import { ControlError } from "./control-error";
import { convertGateError, convertGatePauseResult, convertGateResumeResult } from "./convert-gate-results";
import type { RolloutService } from "./rollout-service";

/** Options of {@link createGateControls}. */
export interface GateControlsOptions {
  gate: GateControl;
  /** The run's SGLang client (weights are loaded on every worker). */
  engine: Pick<SglangClient, "updateWeightsFromDisk">;
  /** Whether a step or eval runs now (the `state` of a resume answer). */
  stepRunning: () => boolean;
}

/**
 * The pause / resume / weights part of a {@link RolloutService}, over the run's generation gate and SGLang
 * client: `pause` waits for quiescence (504 `pause_timeout`, 409 `pause_cancelled`), `resume` reopens the
 * gate under the named version, and `updateWeightsFromDisk` requires the paused state (409 `not_paused`)
 * and forwards SGLang's `POST /update_weights_from_disk` to every worker (503 `backend_unavailable` when a
 * worker cannot be reached, 502 `backend_error` when one refuses). The client reports success as a whole,
 * so each worker's `message` is `"updated"`.
 */
export function createGateControls(
  options: GateControlsOptions,
): Pick<RolloutService, "pause" | "resume" | "updateWeightsFromDisk"> {
  const { gate, engine, stepRunning } = options;
  return {
    pause: async ({ timeoutMs }) => {
      try {
        return convertGatePauseResult(await gate.pause(timeoutMs !== undefined ? { timeoutMs } : {}));
      } catch (error) {
        throw convertGateError(error);
      }
    },
    resume: async ({ weightVersion }) =>
      convertGateResumeResult(
        gate.resume(weightVersion !== undefined ? { weightVersion } : {}),
        stepRunning(),
      ),
    updateWeightsFromDisk: async ({ modelPath, weightVersion, loadFormat, flushCache }) => {
      if (gate.state !== "paused") {
        throw new ControlError({
          code: "not_paused",
          message: `generation is ${gate.state === "open" ? "not paused" : "still pausing"}; POST /rollout/v1/pause first`,
        });
      }
      let outcomes: WeightUpdateOutcome[];
      try {
        outcomes = await engine.updateWeightsFromDisk({
          modelPath,
          flushCache,
          ...(weightVersion !== undefined ? { weightVersion } : {}),
          ...(loadFormat !== null ? { loadFormat } : {}),
        });
      } catch (error) {
        const unreachable = SglangConnectionError.isInstance(error) || SglangTimeoutError.isInstance(error);
        throw new ControlError({
          code: unreachable ? "backend_unavailable" : "backend_error",
          message: `update_weights_from_disk failed: ${(error as Error).message}`,
          cause: error,
        });
      }
      // Every worker answered or failed on its own: the trainer sees each one (a partial failure is a 200
      // with `success: false`, so it can retry or stop); no worker reachable at all is a 503.
      if (
        outcomes.length > 0 &&
        outcomes.every((outcome) => outcome.error !== undefined && !outcome.success)
      ) {
        const unreachable = outcomes.every(
          (outcome) =>
            SglangConnectionError.isInstance(outcome.error) || SglangTimeoutError.isInstance(outcome.error),
        );
        if (unreachable) {
          throw new ControlError({
            code: "backend_unavailable",
            message: `update_weights_from_disk failed on every worker: ${outcomes[0]!.message}`,
            cause: outcomes[0]!.error,
          });
        }
      }
      return {
        success: outcomes.every((outcome) => outcome.success),
        weight_version: weightVersion ?? null,
        workers: outcomes.map(({ url, success, message }) => ({ url, success, message })),
      };
    },
  };
}
