import type { GroupExportOutcome } from "../group/group-export-outcome";
import type { TrainingRow } from "../rows/training-row";
import { passRates } from "./pass-at-k";
import { mean, percentile, summaryStats } from "./summary-stats";

/**
 * Top-level metadata fields never turned into `<field>/…` metrics; keys starting with `_` are skipped
 * too (see docs/contract.md#metrics).
 */
export const METADATA_METRIC_SKIP_KEYS: readonly string[] = [
  "agentic_trace",
  "id",
  "index",
  "sample_index",
  "group_index",
  "start_rollout_id",
  "rollout_turns",
];

/** Options of {@link computeRolloutMetrics}. */
export interface ComputeRolloutMetricsOptions {
  /** Every Group outcome of the step (exported, dropped and filtered). */
  outcomes: readonly GroupExportOutcome[];
  /** `--log-passrate`: add `passrate/pass@k`. @default false */
  logPassrate?: boolean;
  /** Prepended to every key, e.g. `"eval/"`. @default "" */
  prefix?: string;
}

/**
 * Per-step rollout metrics (see docs/contract.md#metrics), computed over
 * the rows of exported Groups:
 * - `rollout/raw_reward`: mean primary reward over rows that have one;
 * - `rollout/<field>/{mean,median,max,min}`: numeric helper fields of reward objects;
 * - `<field>/{mean,median,max,min}`: top-level numeric export metadata (numbers only, not booleans;
 *   {@link METADATA_METRIC_SKIP_KEYS} and `_`-prefixed keys skipped);
 * - `stop_reason/<reason>/{count,ratio}` (ratio of rows);
 * - `num_turn/{min,mean,max,p50,p90,p99}` (NumPy-style linear percentiles);
 * - with `logPassrate`: `passrate/pass@k`, one success flag per session — its representative context is
 *   the first one carrying a reward (seed: only `main` carries it), success is primary reward `== 1`;
 * - Group accounting: `rollout/exported_groups`, `rollout/rows`, `rollout/dropped_groups`,
 *   `rollout/dropped_groups/<reason>`, `rollout/filtered_groups`, `rollout/filtered_groups/<reason>`.
 *
 * Statistics with no data are omitted rather than reported as NaN.
 */
export function computeRolloutMetrics(options: ComputeRolloutMetricsOptions): Record<string, number> {
  const { outcomes, logPassrate = false, prefix = "" } = options;
  const metrics: Record<string, number> = {};
  const put = (key: string, value: number) => {
    metrics[`${prefix}${key}`] = value;
  };
  const putStats = (key: string, values: number[]) => {
    if (values.length === 0) return;
    const stats = summaryStats(values);
    put(`${key}/mean`, stats.mean);
    put(`${key}/median`, stats.median);
    put(`${key}/max`, stats.max);
    put(`${key}/min`, stats.min);
  };

  const exported = outcomes.filter((outcome) => outcome.kind === "exported");
  const rows: TrainingRow[] = exported.flatMap((outcome) => outcome.rows);

  const metadataValues = new Map<string, number[]>();
  for (const row of rows) {
    for (const [key, value] of Object.entries(row.metadata)) {
      if (key.startsWith("_") || METADATA_METRIC_SKIP_KEYS.includes(key)) continue;
      if (typeof value !== "number" || !Number.isFinite(value)) continue;
      pushTo(metadataValues, key, value);
    }
  }
  for (const [key, values] of metadataValues) putStats(key, values);

  const rewards = rows.flatMap((row) => (row.reward === null ? [] : [row.reward]));
  if (rewards.length > 0) put("rollout/raw_reward", mean(rewards));
  const details = new Map<string, number[]>();
  for (const row of rows)
    for (const [key, value] of Object.entries(row.reward_details)) pushTo(details, key, value);
  for (const [key, values] of details) putStats(`rollout/${key}`, values);

  const stopReasons = new Map<string, number>();
  for (const row of rows) stopReasons.set(row.stop_reason, (stopReasons.get(row.stop_reason) ?? 0) + 1);
  for (const [reason, count] of stopReasons) {
    put(`stop_reason/${reason}/count`, count);
    put(`stop_reason/${reason}/ratio`, count / rows.length);
  }

  if (rows.length > 0) {
    const turns = rows.map((row) => row.num_turns);
    put("num_turn/min", Math.min(...turns));
    put("num_turn/mean", mean(turns));
    put("num_turn/max", Math.max(...turns));
    put("num_turn/p50", percentile(turns, 50));
    put("num_turn/p90", percentile(turns, 90));
    put("num_turn/p99", percentile(turns, 99));
  }

  if (logPassrate) {
    const groups = exported.map((outcome) => {
      const representative = new Map<string, number>();
      for (const row of outcome.rows) {
        if (row.reward !== null && !representative.has(row.session_id))
          representative.set(row.session_id, row.reward);
      }
      return [...representative.values()].map((reward) => reward === 1);
    });
    for (const [key, value] of Object.entries(passRates(groups))) put(`passrate/${key}`, value);
  }

  put("rollout/exported_groups", exported.length);
  put("rollout/rows", rows.length);
  const dropped = outcomes.filter((outcome) => outcome.kind === "dropped");
  const filtered = outcomes.filter((outcome) => outcome.kind === "filtered");
  put("rollout/dropped_groups", dropped.length);
  put("rollout/filtered_groups", filtered.length);
  for (const outcome of dropped) {
    const key = `${prefix}rollout/dropped_groups/${outcome.reason}`;
    metrics[key] = (metrics[key] ?? 0) + 1;
  }
  for (const outcome of filtered) {
    const key = `${prefix}rollout/filtered_groups/${outcome.reason}`;
    metrics[key] = (metrics[key] ?? 0) + 1;
  }
  return metrics;
}

function pushTo(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
