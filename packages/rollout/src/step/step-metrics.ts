import { computeRolloutMetrics, type ExportMode, type GroupExportOutcome } from "@relax/export";
import { type DroppedGroup, isDroppedGroup } from "../group/group-outcome";
import type { GroupResult } from "../group/run-group";

/**
 * The step's metrics: the export pipeline's (over Groups that reached export) plus
 * `rollout/dropped_groups/<reason>` for Groups dropped before export (launch, barrier, agent failure),
 * with `rollout/dropped_groups` the sum of every per-reason count. Interrupted Groups are not drops.
 * Eval keys are prefixed `eval/<dataset>/` (`eval/` without a dataset name).
 */
export function stepMetrics(options: {
  results: readonly GroupResult[];
  mode: ExportMode;
  logPassrate: boolean;
  dataset?: string;
}): Record<string, number> {
  const { results, mode, logPassrate, dataset } = options;
  const prefix = mode === "eval" ? (dataset !== undefined ? `eval/${dataset}/` : "eval/") : "";
  const exportOutcomes: GroupExportOutcome[] = results.flatMap((result) =>
    result.export ? [result.export] : [],
  );
  const metrics = computeRolloutMetrics({ outcomes: exportOutcomes, logPassrate, prefix });
  const reasonKey = `${prefix}rollout/dropped_groups/`;
  for (const result of results) {
    if (isDroppedBeforeExport(result)) {
      const key = `${reasonKey}${result.reason}`;
      metrics[key] = (metrics[key] ?? 0) + 1;
    }
  }
  metrics[`${prefix}rollout/dropped_groups`] = Object.entries(metrics)
    .filter(([key]) => key.startsWith(reasonKey))
    .reduce((sum, [, count]) => sum + count, 0);
  return metrics;
}

/**
 * A drop before export (launch, barrier, agent failure): export's own drops are in the export pipeline's
 * metrics already, and an over-sampled Group (not a drop) always reached export.
 */
function isDroppedBeforeExport(result: GroupResult): result is DroppedGroup {
  return isDroppedGroup(result) && result.export === undefined;
}
