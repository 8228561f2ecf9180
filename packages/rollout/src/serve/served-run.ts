import type { EngineFaultView } from "@relax/agent-api";
import type { TextTokenizer } from "@relax/chat";
import type { SglangClient } from "@relax/sglang";
import type { RolloutController } from "../step/rollout-controller";
import type { StepRunner } from "../step/step-runner";

/**
 * What the rollout service of `relax serve` runs on: a {@link StepRunner} and what its status reports (the
 * backend's kind, the engine-fault counters, resident Groups), the engine it asks for health and weight
 * versions, and the tokenizer that decodes rows for `GET /rollout/v1/view`. `RolloutRuntime` of
 * `@relax/runtime` is one.
 */
export interface ServedRun extends StepRunner {
  /** The inference backend: `"sglang"`, or `"standin"` for the SGLang-compatible stand-in (not a model). */
  readonly backend: { readonly kind: "sglang" | "standin" };
  /** The engine client: its health, weight updates from disk and the weight version after an update. */
  readonly engine: Pick<SglangClient, "health" | "updateWeightVersion" | "updateWeightsFromDisk">;
  /** Engine failures of in-flight turns, held and continued (docs/contract.md#engine-failures). */
  readonly engineFaults: EngineFaultView;
  /** Groups alive across steps (cross-step scheduling). */
  readonly controller: Pick<RolloutController, "residentGroups" | "queuedGroups" | "prelaunched">;
  readonly tokenizer: TextTokenizer;
}
