import { ConfigError } from "@relax/rollout";

/** Inputs of {@link planAgentCapacity}: the resident capacities and flags of a run. */
export interface AgentCapacityInput {
  /** Resident train Groups (`--agentic-concurrency`). */
  trainConcurrency: number;
  /** Sessions per train Group (`--n-samples-per-prompt`). */
  nSamplesPerPrompt: number;
  /** Names of the eval datasets (`--eval-prompt-data`); empty without eval. */
  evalDatasets: readonly string[];
  /** Resident eval Groups per dataset (`--agentic-eval-concurrency` or its default `ceil(T / G_d)`). */
  evalConcurrency: number;
  /** Sessions per eval Group (`--n-samples-per-eval-prompt`). */
  nSamplesPerEvalPrompt: number;
  /** `--agentic-prelaunch`, `--partial-rollout` or `--fully-async`: train sessions stay resident during eval. */
  keepsTrainDuringEval: boolean;
  /** `--agent-max-slots`: the executor's hard limit, if any. */
  agentMaxSlots?: number;
}

/**
 * The external agent capacity a run needs (docs/contract.md#external-capacity): `T` train sessions,
 * `E_d = C_d × G_d` per eval dataset, `E_peak` their maximum (eval datasets run one after another), and
 * the slots required on a shared executor: `T` without eval, `max(T, E_peak)` when train sessions are
 * gone during eval, `T + E_peak` when they stay (prelaunch, partial rollout, fully async).
 */
export interface AgentCapacityPlan {
  /** `T = agentic_concurrency × n_samples_per_prompt`. */
  train: number;
  /** Resident train Groups (`--agentic-concurrency`). */
  trainGroups: number;
  /** Sessions per train Group (`--n-samples-per-prompt`). */
  trainSamples: number;
  /** Resident eval Groups per dataset (0 without eval). */
  evalGroups: number;
  /** Sessions per eval Group (0 without eval). */
  evalSamples: number;
  /** `E_d` of each eval dataset, in run order. */
  evalPerDataset: Array<{ name: string; sessions: number }>;
  /** `E_peak` (0 without eval). */
  evalPeak: number;
  /** Which row of the table applies. */
  rule: "T" | "max(T, E_peak)" | "T + E_peak";
  /** Slots the executor must offer. */
  required: number;
  /** `--agent-max-slots`, if given. */
  maxSlots?: number;
}

/**
 * Computes the required agent slots (see {@link AgentCapacityPlan}).
 * @throws ConfigError when `agentMaxSlots` is below the required slots: a Group would otherwise hang at
 *   its all-session first-request barrier waiting for an executor slot that never frees.
 */
export function planAgentCapacity(input: AgentCapacityInput): AgentCapacityPlan {
  const train = input.trainConcurrency * input.nSamplesPerPrompt;
  const perDataset = input.evalConcurrency * input.nSamplesPerEvalPrompt;
  const evalPerDataset = input.evalDatasets.map((name) => ({ name, sessions: perDataset }));
  const evalPeak = evalPerDataset.reduce((peak, item) => Math.max(peak, item.sessions), 0);
  const rule =
    evalPerDataset.length === 0 ? "T" : input.keepsTrainDuringEval ? "T + E_peak" : "max(T, E_peak)";
  const required =
    rule === "T" ? train : rule === "T + E_peak" ? train + evalPeak : Math.max(train, evalPeak);
  const hasEval = evalPerDataset.length > 0;
  const plan: AgentCapacityPlan = {
    train,
    trainGroups: input.trainConcurrency,
    trainSamples: input.nSamplesPerPrompt,
    evalGroups: hasEval ? input.evalConcurrency : 0,
    evalSamples: hasEval ? input.nSamplesPerEvalPrompt : 0,
    evalPerDataset,
    evalPeak,
    rule,
    required,
    ...(input.agentMaxSlots !== undefined ? { maxSlots: input.agentMaxSlots } : {}),
  };
  if (input.agentMaxSlots !== undefined && input.agentMaxSlots < required) {
    throw new ConfigError({
      message: `--agent-max-slots ${input.agentMaxSlots} is below the ${required} agent slots this run needs (${formatAgentCapacity(plan)}); Groups would hang at the first-request barrier. Lower --agentic-concurrency / --agentic-eval-concurrency, or raise the executor's limit`,
    });
  }
  return plan;
}

/** `8 Groups × 4 samples`. */
function groupsTimesSamples(groups: number, samples: number): string {
  return `${groups} Group${groups === 1 ? "" : "s"} × ${samples} sample${samples === 1 ? "" : "s"}`;
}

/**
 * The plan in words, for the start-up log line and the `--agent-max-slots` error:
 * `32 (8 Groups × 4 samples)` without eval; `40 = 32 train (8 Groups × 4 samples) + 8 eval (4 Groups × 2
 * samples), train sessions stay during eval`; `40 = the larger of 32 train (…) and 40 eval (…), eval after
 * train`; `, executor limit 64 (--agent-max-slots)` appended when given.
 */
export function formatAgentCapacity(plan: AgentCapacityPlan): string {
  const train = `${plan.train} train (${groupsTimesSamples(plan.trainGroups, plan.trainSamples)})`;
  const evalPart = `${plan.evalPeak} eval (${groupsTimesSamples(plan.evalGroups, plan.evalSamples)}${
    plan.evalPerDataset.length > 1 ? ` per dataset, ${plan.evalPerDataset.length} datasets in turn` : ""
  })`;
  const text =
    plan.rule === "T"
      ? `${plan.required} (${groupsTimesSamples(plan.trainGroups, plan.trainSamples)})`
      : plan.rule === "T + E_peak"
        ? `${plan.required} = ${train} + ${evalPart}, train sessions stay during eval`
        : `${plan.required} = the larger of ${train} and ${evalPart}, eval after train`;
  return plan.maxSlots !== undefined ? `${text}, executor limit ${plan.maxSlots} (--agent-max-slots)` : text;
}
