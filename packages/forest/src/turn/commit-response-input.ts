import type { AssistantMessage } from "@relax/chat";
import type { ResponseFinishReason, TurnTiming } from "../node/forest-node";
import type { WeightVersionSpan } from "../sample/training-sample";

/** What the engine returned for a turn, given to {@link SessionForest.commitResponse}. */
export interface CommitResponseInput {
  /** Generated token ids exactly as the engine returned them (SGLang `output_ids`), stop token included. */
  outputIds: ArrayLike<number>;
  /** Rollout logprob (natural log) of each generated token, 1:1 with `outputIds`. */
  logprobs: ArrayLike<number>;
  /** Engine finish reason; `abort` commits a partial generation (sample status `aborted`). */
  finishReason: ResponseFinishReason;
  /** The canonical assistant message parsed from `outputIds` (reasoning and tool calls included). */
  message: AssistantMessage;
  /** Weight version that generated every token (when one version did). */
  weightVersion?: string | undefined;
  /** Weight versions per token span (`[start, end)` over `outputIds`, tiling it), e.g. across a partial-rollout resume. */
  weightVersionSpans?: readonly WeightVersionSpan[];
  timing?: TurnTiming;
  /** Free-form JSON kept on the response node. */
  metadata?: Record<string, unknown>;
}
