import type { RolloutRuntime } from "../runtime/create-rollout-runtime";

/**
 * The start-up banner of `relax rollout`: gateway URL, backend, tokenizer, agent and dataset.
 * `title` and `steps` (the step count shown; default `--num-rollout`) let `relax serve` reuse it.
 */
export function formatBanner(
  runtime: RolloutRuntime,
  options: { title?: string; steps?: string } = {},
): string {
  const { components, backend, baseUrl, prompts } = runtime;
  const { train } = components.steps;
  return [
    options.title ?? "Relax agentic rollout",
    `  gateway   ${baseUrl}`,
    `  backend   ${backend.description}`,
    backend.kind === "standin"
      ? "            NOTE: the stand-in engine replays a scripted policy through SGLang's wire format; it is not a model."
      : undefined,
    `  tokenizer ${components.tokenizer.source}`,
    `  agent     ${components.group.agentCommand}  (cwd ${components.group.agentCwd})`,
    `  dataset   ${components.datasets.train.file} (${prompts.length} prompts): ${options.steps ?? `${components.steps.numRollout} step(s)`} × ${train.groupsPerStep} groups × ${train.groupSize} samples`,
    "",
  ]
    .filter((line) => line !== undefined)
    .join("\n");
}

/** Metrics with values rounded to 6 decimals, for the `metrics` log line. */
export function roundMetrics(metrics: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(metrics).map(([key, value]) => [key, Number(value.toFixed(6))]));
}
