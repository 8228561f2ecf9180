import { SessionContextLengthError } from "../errors/session-context-length-error";
import { trainLength } from "../node/collect-prefix";
import type { InternalNode } from "../node/forest-node";
import type { RenderedObservation } from "./render-observation";

/** Options of {@link turnBudget}. */
export interface TurnBudgetOptions {
  /** The node generation continues from: an existing observation, or the parent of a new one. */
  base: InternalNode;
  /** The new observation's tokens, when one is created under `base`. */
  rendered?: RenderedObservation | undefined;
  /** The request's cap on new tokens. */
  maxNewTokens?: number | undefined;
  /** The session's context window (training tokens), when it has one. */
  maxContextTokens?: number | undefined;
  /** For the error. */
  sessionId: string;
}

/** A turn's prompt lengths and generation budget. */
export interface TurnBudget {
  /** Inference tokens of the prompt (the prefix sent to the engine). */
  promptTokens: number;
  /** Training tokens of the prompt (images expanded): what the context window counts. */
  trainPromptTokens: number;
  /**
   * `maxNewTokens` clamped to the room left in the context window (`maxContextTokens -
   * trainPromptTokens`); `undefined` when neither is set.
   */
  budget: number | undefined;
}

/**
 * The prompt lengths of a turn (the lineage of `base` plus the new observation, if any) and how many
 * tokens it may generate.
 *
 * @throws SessionContextLengthError (stage `observation`) when the prompt fills the context window.
 */
export function turnBudget({
  base,
  rendered,
  maxNewTokens,
  maxContextTokens,
  sessionId,
}: TurnBudgetOptions): TurnBudget {
  const tokens = rendered?.tokens;
  const promptTokens = base.prefixTokens + base.tokenCount + (tokens?.length ?? 0);
  const trainPromptTokens =
    base.prefixTrainTokens + trainLength(base) + (rendered?.trainTokens?.length ?? tokens?.length ?? 0);
  let budget = maxNewTokens;
  if (maxContextTokens !== undefined) {
    if (trainPromptTokens >= maxContextTokens) {
      throw new SessionContextLengthError({
        maxContextLength: maxContextTokens,
        promptTokens: trainPromptTokens,
        stage: "observation",
        sessionId,
      });
    }
    budget = Math.min(maxNewTokens ?? Number.POSITIVE_INFINITY, maxContextTokens - trainPromptTokens);
  }
  return { promptTokens, trainPromptTokens, budget };
}
