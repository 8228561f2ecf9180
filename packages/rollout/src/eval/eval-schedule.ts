/**
 * When the eval datasets run in `relax rollout`: with an `interval`, before the first train step (when
 * `beforeTrain`), after train step k when `(k + 1) % interval == 0`, and after the last step; without
 * one, only after the last step.
 */
export interface EvalSchedulePlan {
  /** `--eval-interval`; absent: eval only after the last train step. */
  interval?: number;
  /** Eval before the first train step (only with an `interval`; off with `--skip-eval-before-train`). */
  beforeTrain: boolean;
}

/**
 * Whether `--eval-interval` makes the eval datasets due after train step `rolloutId` (0-based):
 * `(rolloutId + 1) % interval === 0`, so an interval of 2 evaluates after steps 1, 3, 5, … False without
 * an interval.
 */
export function evalDueAfterStep(schedule: EvalSchedulePlan, rolloutId: number): boolean {
  return schedule.interval !== undefined && (rolloutId + 1) % schedule.interval === 0;
}

/**
 * The eval points of a `relax rollout` run of `numRollout` train steps, as the rollout ids its eval steps
 * carry: an eval run after train step k is rollout `k + 1` (it evaluates the policy that generates step
 * k + 1), the eval before the first step is rollout 0. With an interval: 0 (unless
 * `beforeTrain` is off), then `k + 1` for every step k due by {@link evalDueAfterStep}, and always
 * `numRollout` (after the last step). Without one: only `numRollout`. Over 4 steps: interval 1 →
 * `[0, 1, 2, 3, 4]`, 2 → `[0, 2, 4]`, 3 → `[0, 3, 4]`, none → `[4]`.
 */
export function evalRolloutIds(schedule: EvalSchedulePlan, numRollout: number): number[] {
  const ids = schedule.interval !== undefined && schedule.beforeTrain ? [0] : [];
  for (let rolloutId = 0; rolloutId < numRollout; rolloutId++) {
    if (evalDueAfterStep(schedule, rolloutId) || rolloutId === numRollout - 1) ids.push(rolloutId + 1);
  }
  return ids;
}
