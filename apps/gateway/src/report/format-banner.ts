import type { RolloutRuntime } from "@relax/runtime";

/**
 * The start-up banner of `relax rollout`: gateway URL (with `--gateway-shards`, every shard's URL), backend, tokenizer, agent, train dataset and, when
 * there are eval datasets, their prompts, Group shape and schedule. `title` and `steps` (the step count
 * shown; default `--num-rollout`) let `relax serve` reuse it; `serve` describes serve's eval schedule (due evals
 * run at the next step's start; none before training or after a last step unless the trainer asks).
 */
export function formatBanner(
  runtime: RolloutRuntime,
  options: { title?: string; steps?: string; serve?: boolean } = {},
): string {
  const { components, backend, baseUrl, prompts, evalDatasets, shards } = runtime;
  const { train } = components.steps;
  return [
    options.title ?? "Relax agentic rollout",
    shards === undefined
      ? `  gateway   ${baseUrl}`
      : `  gateway   ${shards.size} shards (agents use their shard's URL): ${shards
          .status()
          .map((shard) => shard.url ?? `shard ${shard.index} ${shard.state}`)
          .join(", ")}; /health at ${new URL("/health", baseUrl).href}`,
    `  backend   ${backend.description}`,
    backend.kind === "standin"
      ? "            NOTE: the stand-in engine replays a scripted policy through SGLang's wire format; it is not a model."
      : undefined,
    `  tokenizer ${components.tokenizer.source}`,
    `  agent     ${components.group.agentCommand}  (cwd ${components.group.agentCwd})`,
    runtime.isolation !== undefined ? `  isolation ${runtime.isolation}` : undefined,
    `  dataset   ${components.datasets.train.file} (${prompts.length} prompts): ${options.steps ?? `${components.steps.numRollout} step(s)`} × ${train.groupsPerStep} groups × ${train.groupSize} samples`,
    evalDatasets.length > 0 ? `  eval      ${formatEvalLine(runtime, options.serve ?? false)}` : undefined,
    "",
  ]
    .filter((line) => line !== undefined)
    .join("\n");
}

/** `aime (30 prompts), gsm8k (8 prompts) × 1 sample, 32 groups at once; before training, every 5 steps and after the last`. */
function formatEvalLine(runtime: RolloutRuntime, serve: boolean): string {
  const { eval: plan, evalSchedule } = runtime.components.steps;
  const datasets = runtime.evalDatasets.map(
    (dataset) => `${dataset.name} (${dataset.prompts.length} prompts)`,
  );
  const when = serve
    ? `${
        evalSchedule.interval === undefined
          ? ""
          : `after every ${evalSchedule.interval} step(s), at the next step's start (on the weights it names, labelled with the step just trained); `
      }POST /rollout/v1/evals any time`
    : evalSchedule.interval === undefined
      ? "after the last step"
      : `${evalSchedule.beforeTrain ? "before training, " : ""}every ${evalSchedule.interval} step(s) and after the last`;
  return `${datasets.join(", ")} × ${plan.groupSize} sample(s), ${plan.concurrency} groups at once; ${when}`;
}
