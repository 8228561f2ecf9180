import type { GroupResult } from "../group/run-group";

/** The train steps a Group lived in, as its resident record keeps them. */
export interface GroupLifetime {
  /** Every train step during which the Group was resident. */
  readonly steps: readonly number[];
  /** The step that leased the Group, once leased. */
  readonly leasedStep?: number | undefined;
}

/**
 * Adds the cross-step fields to an exported Group's rows (see docs/contract.md#cross-step-scheduling):
 * `partition` (the train step whose batch the Group fills: the consuming step), `steps_lived` (the train
 * steps the Group was resident in) and `weight_version_lag` (the consuming step minus the oldest step in
 * which one of the row's tokens was generated, from each turn's `rolloutStep` metadata; 0 when unknown).
 * A dropped Group is returned as it is.
 */
export function annotateRows(
  result: GroupResult,
  lifetime: GroupLifetime,
  consumedStep: number,
): GroupResult {
  if (result.kind !== "exported") return result;
  const firstStep = new Map<string, number>();
  for (const context of result.export.contexts) {
    let oldest: number | undefined;
    for (const turn of context.sample.turns) {
      const step = turn.metadata?.rolloutStep;
      if (typeof step === "number" && (oldest === undefined || step < oldest)) oldest = step;
    }
    if (oldest !== undefined) firstStep.set(`${context.sessionId} ${context.stateHash}`, oldest);
  }
  const steps = [...lifetime.steps, consumedStep]
    .filter((step, i, all) => all.indexOf(step) === i)
    .sort((a, b) => a - b);
  for (const row of result.export.rows) {
    const oldest =
      firstStep.get(`${row.session_id} ${row.state_hash}`) ?? lifetime.leasedStep ?? consumedStep;
    row.partition = consumedStep;
    row.steps_lived = steps;
    row.weight_version_lag = Math.max(0, consumedStep - oldest);
  }
  return result;
}
