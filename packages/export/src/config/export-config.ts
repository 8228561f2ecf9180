import { z } from "zod";
import type { AdvantageFunction } from "../credit/advantage-function";
import type { SideCreditFunction } from "../credit/side-credit-function";
import type { GroupRewardFunction, RewardFunction } from "../reward/reward-function";

const functionOrSpec = z.custom<
  string | RewardFunction | GroupRewardFunction | AdvantageFunction | SideCreditFunction
>((value) => (typeof value === "string" && value.trim() !== "") || typeof value === "function", {
  message: 'must be a "module#export" string or a function',
});

/**
 * The export configuration, as the `relax` CLI assembles it from its flags (each field names its flag).
 * Every field is camelCase; the flags and their defaults are described in docs/contract.md#reward and
 * docs/contract.md#advantage.
 */
export const exportConfigSchema = z.strictObject({
  /** `--n-samples-per-prompt`: sessions per Group; each Group must have exactly this many. */
  nSamplesPerPrompt: z.number().int().min(1),
  /** `--n-samples-per-eval-prompt`: when set, eval Groups are checked against it. */
  nSamplesPerEvalPrompt: z.number().int().min(1).optional(),
  /** `--advantage-estimator`. @default "grpo" */
  advantageEstimator: z.enum(["grpo", "rloo", "reinforce_plus_plus_baseline"]).default("grpo"),
  /** `--rewards-normalization` (slime's default on); off → advantage = raw primary reward. @default true */
  rewardsNormalization: z.boolean().default(true),
  /** GRPO divides by `std + 1e-6` (`--disable-grpo-std-normalization` turns it off). @default true */
  grpoStdNormalization: z.boolean().default(true),
  /** Which std GRPO divides by; slime uses torch's default, the unbiased one. @default "unbiased" */
  stdEstimator: z.enum(["unbiased", "population"]).default("unbiased"),
  /** `--reward-key`: primary field of a reward object. */
  rewardKey: z.string().min(1).optional(),
  /** `--eval-reward-key`: primary field in eval (falls back to `rewardKey`). */
  evalRewardKey: z.string().min(1).optional(),
  /**
   * Declares that the agent writes `reward` into its output, so that a recipe with no reward source is
   * refused before any agent starts rather than found after the agents ran (see docs/contract.md#reward).
   * @default false
   */
  agentWritesReward: z.boolean().default(false),
  /** `--custom-rm-path`: a `module#export` string or the function itself. */
  customRm: functionOrSpec.optional(),
  /** `--group-rm`: call `customRm` once per Group with every context. @default false */
  groupRm: z.boolean().default(false),
  /** `--agentic-custom-advantage-path`: a `module#export` string or the function itself. */
  customAdvantage: functionOrSpec.optional(),
  /**
   * `--request-class-credit-path`: credits side contexts (trained request classes) instead of the default
   * rule (the main context's reward and advantage); a `module#export` string or the function itself.
   */
  sideCredit: functionOrSpec.optional(),
  /**
   * `--agent-contexts`: what an implicit export does with a session whose history switches agent (a reset
   * into other leading system messages, tools or chat-template kwargs: an `@openai/agents` handoff, a
   * LangChain / LangGraph structured-output call without tools). `train` exports each agent context as a
   * sibling context sharing the session's reward and advantage, as compaction segments; `drop` refuses
   * the session as non-linear (`ambiguous_implicit_export`, the whole Group dropped). See
   * docs/contract.md#agent-contexts. @default "train"
   */
  agentContexts: z.enum(["train", "drop"]).default("train"),
  /** The recipe may export more than one context per session (multi-agent, explicit branches). @default false */
  multiContext: z.boolean().default(false),
  /** `--use-dynamic-batch-size`; required for multi-context training. @default false */
  useDynamicBatchSize: z.boolean().default(false),
  /** `--max-tokens-per-gpu`; required with dynamic batching. */
  maxTokensPerGpu: z.number().int().min(1).optional(),
  /**
   * `--export-image-bytes`: `multimodal_train_inputs` entries carry the image bytes (`data`, base64) instead
   * of the `source` URL, for `data:` images (http(s) images keep `source`). @default false
   */
  inlineImageBytes: z.boolean().default(false),
  /** `--log-passrate`: log `passrate/pass@k` (primary reward `== 1` is a success). @default false */
  logPassrate: z.boolean().default(false),
  /** `--apply-chat-template-kwargs`: defaults under each record's own kwargs when matching. @default {} */
  chatTemplateKwargs: z.record(z.string(), z.unknown()).default({}),
  /** `--save-debug-rollout-data`: dump path, `{rollout_id}` replaced by the step id. */
  saveDebugRolloutData: z.string().min(1).optional(),
});

/** A parsed, defaulted export configuration. */
export type ExportConfig = z.output<typeof exportConfigSchema>;
/** What callers write: defaults may be omitted. */
export type ExportConfigInput = z.input<typeof exportConfigSchema>;
