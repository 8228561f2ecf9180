import { ControlError } from "./control-error";
import type {
  ControlRecord,
  HealthResponse,
  PauseResponse,
  ResumeResponse,
  StatusResponse,
  WeightsResponse,
} from "./control-schemas";

/** Receives the NDJSON records of a step or an eval run, as they happen. Never throws. */
export type ControlRecordSink = (record: ControlRecord) => void;

/**
 * What the trainer control API drives: the long-lived rollout service of `relax serve`. Answers are in
 * the wire spelling of `control-schemas.ts`. A refusal is a {@link ControlError} (e.g. 409
 * `step_out_of_order`); any other error is a 500 `internal_error`.
 */
export interface RolloutService {
  status(): StatusResponse | Promise<StatusResponse>;
  health(): Promise<HealthResponse>;
  /**
   * Runs step `rolloutId` and reports its records to `sink`, `step_start` first and `step_end` last.
   * Refusals (out of order, already running) must be thrown before the first record; an error after it
   * becomes the stream's final `error` record. The step runs to the end even when nobody reads the
   * stream any more.
   */
  runStep(
    request: {
      rolloutId: number;
      weightVersion?: string;
      /** Another step follows (prelaunch may start its Groups). @default true */
      nextStepFollows?: boolean;
      /** The run's last step (nothing prelaunched); `nextStepFollows: true` with it is refused. */
      lastStep?: boolean;
    },
    sink: ControlRecordSink,
  ): Promise<void>;
  /** Runs the eval datasets now (`eval_row`, `eval_end` per dataset, then `evals_end`); same contract. */
  runEvals(request: { rolloutId: number; datasets?: string[] }, sink: ControlRecordSink): Promise<void>;
  /** Stops generation for a weight update; resolves once nothing is generating. */
  pause(request: { timeoutMs?: number }): Promise<PauseResponse>;
  /** Continues every held request under `weightVersion`. */
  resume(request: { weightVersion?: string }): Promise<ResumeResponse>;
  /** SGLang `/update_weights_from_disk` on every worker; throws 409 `not_paused` unless paused. */
  updateWeightsFromDisk(request: {
    modelPath: string;
    weightVersion?: string;
    loadFormat: string | null;
    flushCache: boolean;
  }): Promise<WeightsResponse>;
  /**
   * Optional: the rows of finished train step `rolloutId`, the bytes of its rows file (JSONL). Throws
   * `not_found` for a step that has not finished. Absent: `GET /rollout/v1/steps/{id}/rows` answers 404.
   */
  stepRows?(request: { rolloutId: number }): Promise<string>;
  /**
   * Optional: the `relax view` page (one self-contained HTML document) of the recent steps, the running
   * one included with the Groups finished so far. Absent: `GET /rollout/v1/view` answers 404.
   */
  view?(): string | Promise<string>;
}
