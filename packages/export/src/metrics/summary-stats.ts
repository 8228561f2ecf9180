/**
 * The `q`-th percentile (0–100) of `values` with linear interpolation between closest ranks — NumPy's
 * default (`numpy.percentile(..., method="linear")`; see docs/contract.md#metrics).
 * @throws RangeError for an empty list or `q` outside [0, 100].
 */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new RangeError("percentile of an empty list");
  if (!(q >= 0 && q <= 100)) throw new RangeError(`percentile q must be in [0, 100], got ${q}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

/** Arithmetic mean. @throws RangeError for an empty list. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("mean of an empty list");
  return values.reduce((total, value) => total + value, 0) / values.length;
}

/**
 * `{mean, median, max, min}` of `values`, as the `<field>/…` metrics report them (see
 * docs/contract.md#metrics).
 */
export function summaryStats(values: readonly number[]): {
  mean: number;
  median: number;
  max: number;
  min: number;
} {
  return {
    mean: mean(values),
    median: percentile(values, 50),
    max: Math.max(...values),
    min: Math.min(...values),
  };
}
