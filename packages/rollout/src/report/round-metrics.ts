/** Metrics with values rounded to 6 decimals, for the `metrics` log line (`{ "rollout/…": number }`). */
export function roundMetrics(metrics: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(metrics).map(([key, value]) => [key, Number(value.toFixed(6))]));
}
