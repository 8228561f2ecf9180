import type { EngineFaultCounters } from "@relax/agent-api";
import type { TrainingRow } from "@relax/export";
import type { RunCounters } from "@relax/rollout";

/** Figures of a finished run, as printed by {@link formatSummary} and returned by `runRollout`. */
export interface RunSummary {
  /** Train steps run. */
  steps: number;
  /** Train rows, sessions and Groups; eval Groups are reported apart in {@link RunSummary.eval}. */
  rows: number;
  sessions: number;
  groupsExported: number;
  groupsDropped: number;
  dropReasons: Record<string, number>;
  /**
   * Eval steps, when any ran: Groups exported / dropped and the mean numeric reward over every eval row,
   * and per dataset (in the order first run) the figures of its latest run.
   */
  eval: {
    groupsExported: number;
    groupsDropped: number;
    rows: number;
    rewardMean: number | null;
    datasets: EvalDatasetSummary[];
  } | null;
  reward: { mean: number; std: number; min: number; max: number } | null;
  passrate: number | null;
  turnsPerSession: { mean: number; max: number } | null;
  tokens: { total: number; generated: number };
  responseLength: { mean: number; max: number } | null;
  turns: number;
  turnsPerSecond: number;
  gatewayLatencyMs: { p50: number; p99: number } | null;
  wallSeconds: number;
  /** Non-2xx answers to agents by status; requests with an unhonoured contract field by field; parser issues by kind. */
  refusals: Record<string, number>;
  contractChanges: Record<string, number>;
  parseIssues: Record<string, number>;
  /** Engine failures of in-flight turns held and continued (docs/contract.md#engine-failures), or null. */
  engineFaults?: EngineFaultCounters | null;
}

/** One eval dataset in {@link RunSummary.eval}: how often it ran, and its latest run. */
export interface EvalDatasetSummary {
  name: string;
  /** Eval runs of the dataset. */
  runs: number;
  /** Rollout id of its latest run. */
  rolloutId: number;
  /** Rows of its latest run. */
  rows: number;
  /** Mean numeric reward of its latest run's rows (`null` when none has a numeric reward). */
  rewardMean: number | null;
  /** The eval function's metrics of its latest run (`--eval-function-path`); absent without one. */
  functionMetrics?: Record<string, number>;
}

function meanReward(rows: readonly TrainingRow[]): number | null {
  const rewards = rows.flatMap((row) => (typeof row.reward === "number" ? [row.reward] : []));
  return rewards.length > 0 ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null;
}

function stats(values: number[]): { mean: number; std: number; min: number; max: number } | null {
  if (values.length === 0) return null;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  return { mean, std: Math.sqrt(variance), min: Math.min(...values), max: Math.max(...values) };
}

/** The p-th percentile (0–100) with linear interpolation, as numpy's default. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

/**
 * Aggregates the rows and counters of a run into a {@link RunSummary}: `rows` are the train rows;
 * `evalRows` (when eval steps ran) only feed {@link RunSummary.eval}, `evalRuns` (each eval dataset run,
 * in order) its per-dataset figures (the eval function's metrics included, one table row each).
 */
export function summarizeRun(options: {
  rows: readonly TrainingRow[];
  evalRows?: readonly TrainingRow[];
  evalRuns?: ReadonlyArray<{
    dataset: string;
    rolloutId: number;
    rows: readonly TrainingRow[];
    functionMetrics?: Record<string, number>;
  }>;
  counters: RunCounters;
  steps: number;
  wallSeconds: number;
}): RunSummary {
  const { rows, evalRows, evalRuns = [], counters, steps, wallSeconds } = options;
  const datasets = new Map<string, EvalDatasetSummary>();
  for (const run of evalRuns) {
    datasets.set(run.dataset, {
      name: run.dataset,
      runs: (datasets.get(run.dataset)?.runs ?? 0) + 1,
      rolloutId: run.rolloutId,
      rows: run.rows.length,
      rewardMean: meanReward(run.rows),
      ...(run.functionMetrics !== undefined ? { functionMetrics: run.functionMetrics } : {}),
    });
  }
  const rewards = rows.flatMap((row) => (typeof row.reward === "number" ? [row.reward] : []));
  const sessions = new Map<string, number>();
  for (const row of rows)
    sessions.set(row.session_id, Math.max(sessions.get(row.session_id) ?? 0, row.num_turns));
  const turnsPerSession = stats([...sessions.values()]);
  const responseLengths = stats(rows.map((row) => row.response_length));
  return {
    steps,
    rows: rows.length,
    sessions: sessions.size,
    groupsExported: counters.groupsExported,
    groupsDropped: counters.groupsDropped,
    dropReasons: Object.fromEntries(counters.dropReasons),
    eval:
      evalRows === undefined
        ? null
        : {
            groupsExported: counters.evalGroupsExported,
            groupsDropped: counters.evalGroupsDropped,
            rows: evalRows.length,
            rewardMean: meanReward(evalRows),
            datasets: [...datasets.values()],
          },
    reward: stats(rewards),
    passrate: rewards.length > 0 ? rewards.filter((reward) => reward === 1).length / rewards.length : null,
    turnsPerSession: turnsPerSession && { mean: turnsPerSession.mean, max: turnsPerSession.max },
    tokens: {
      total: rows.reduce((sum, row) => sum + row.tokens.length, 0),
      generated: rows.reduce((sum, row) => sum + row.loss_mask.reduce<number>((a, b) => a + b, 0), 0),
    },
    responseLength: responseLengths && { mean: responseLengths.mean, max: responseLengths.max },
    turns: counters.turns,
    turnsPerSecond: wallSeconds > 0 ? counters.turns / wallSeconds : 0,
    gatewayLatencyMs:
      counters.gatewayMs.length > 0
        ? { p50: percentile(counters.gatewayMs, 50), p99: percentile(counters.gatewayMs, 99) }
        : null,
    wallSeconds,
    refusals: Object.fromEntries(counters.refusals ?? []),
    contractChanges: Object.fromEntries(counters.contractChanges ?? []),
    parseIssues: Object.fromEntries(counters.parseIssues ?? []),
    engineFaults: counters.engineFaults !== undefined ? { ...counters.engineFaults } : null,
  };
}

/** `2 (7 held, 7 resumed, 0 failed, 1 stalled calls)`, or `undefined` when no turn was held. */
function formatEngineFaults(counters: EngineFaultCounters | null | undefined): string | undefined {
  if (counters == null || counters.heldTurns === 0) return undefined;
  return `${counters.outages} (${counters.heldTurns} held, ${counters.resumedTurns} resumed, ${counters.exhaustedTurns} failed, ${counters.stalledCalls} stalled calls)`;
}

/** `a: 1, b: 2`, or `undefined` when empty. */
function tally(counts: Record<string, number> | undefined): string | undefined {
  const entries = Object.entries(counts ?? {});
  return entries.length === 0 ? undefined : entries.map(([key, count]) => `${key}: ${count}`).join(", ");
}

const fixed = (value: number, digits = 3) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

/** A two-column text table of a run summary (train figures; eval on rows of their own), then `extra`. */
export function formatSummary(summary: RunSummary, extra: Array<[string, string]> = []): string {
  const rows: Array<[string, string]> = [
    ["rollout steps", String(summary.steps)],
    ["groups exported", String(summary.groupsExported)],
    [
      "groups dropped",
      summary.groupsDropped === 0
        ? "0"
        : `${summary.groupsDropped} (${Object.entries(summary.dropReasons)
            .map(([reason, count]) => `${reason}: ${count}`)
            .join(", ")})`,
    ],
    ["sessions / rows", `${summary.sessions} / ${summary.rows}`],
    [
      "reward mean ± std",
      summary.reward
        ? `${fixed(summary.reward.mean)} ± ${fixed(summary.reward.std)} (min ${fixed(summary.reward.min)}, max ${fixed(summary.reward.max)})`
        : "n/a",
    ],
    ["passrate (reward == 1)", summary.passrate === null ? "n/a" : `${fixed(summary.passrate * 100, 1)} %`],
    [
      "turns per session",
      summary.turnsPerSession
        ? `mean ${fixed(summary.turnsPerSession.mean, 2)}, max ${summary.turnsPerSession.max}`
        : "n/a",
    ],
    ["tokens (all / generated)", `${summary.tokens.total} / ${summary.tokens.generated}`],
    [
      "response length",
      summary.responseLength
        ? `mean ${fixed(summary.responseLength.mean, 1)}, max ${summary.responseLength.max}`
        : "n/a",
    ],
    ["turns / s", `${fixed(summary.turnsPerSecond, 2)} (${summary.turns} turns)`],
    [
      "gateway latency / turn",
      summary.gatewayLatencyMs
        ? `p50 ${fixed(summary.gatewayLatencyMs.p50, 2)} ms, p99 ${fixed(summary.gatewayLatencyMs.p99, 2)} ms`
        : "n/a",
    ],
    ["wall time", `${fixed(summary.wallSeconds, 2)} s`],
    ...([
      ["requests refused", tally(summary.refusals)],
      ["contract fields not honoured", tally(summary.contractChanges)],
      ["parser issues", tally(summary.parseIssues)],
      ["engine outages (turns held)", formatEngineFaults(summary.engineFaults)],
    ].filter((row): row is [string, string] => row[1] !== undefined) as Array<[string, string]>),
    ...(summary.eval === null
      ? []
      : ([
          [
            "eval groups exported / dropped",
            `${summary.eval.groupsExported} / ${summary.eval.groupsDropped}`,
          ],
          ["eval reward mean", summary.eval.rewardMean === null ? "n/a" : fixed(summary.eval.rewardMean)],
          ...summary.eval.datasets.map((dataset): [string, string] => [
            `eval ${dataset.name} reward mean`,
            `${dataset.rewardMean === null ? "n/a" : fixed(dataset.rewardMean)} (rollout ${dataset.rolloutId}, ${dataset.rows} rows${dataset.runs > 1 ? `, latest of ${dataset.runs} runs` : ""})`,
          ]),
          ...summary.eval.datasets.flatMap((dataset) =>
            Object.entries(dataset.functionMetrics ?? {}).map(([key, value]): [string, string] => [
              key,
              `${fixed(value)} (eval function, ${dataset.name}, rollout ${dataset.rolloutId})`,
            ]),
          ),
        ] satisfies Array<[string, string]>)),
    ...extra,
  ];
  const width = Math.max(...rows.map(([key]) => key.length));
  const valueWidth = Math.max(...rows.map(([, value]) => value.length));
  const line = `+${"-".repeat(width + 2)}+${"-".repeat(valueWidth + 2)}+`;
  return [
    line,
    ...rows.map(([key, value]) => `| ${key.padEnd(width)} | ${value.padEnd(valueWidth)} |`),
    line,
  ].join("\n");
}
