import type { GateControl } from "@relax/agent-api";

/** The part of an agent session handle that controls its active-time budget. */
export interface BudgetControl {
  pause(): void;
  resume(): void;
}

/**
 * Keeps the active-time budgets of a leased Group in step with the run's generation gate: while the gate
 * is closed (pausing or paused for a weight update or a `--partial-rollout` step close) every budget is
 * paused, so time held for the trainer is not charged to the agents; on resume they count again. Pauses at
 * once when the gate is already closed. A handle `isProtected(i)` names (a protected session of
 * `--partial-rollout-max-aborted-count`) keeps its budget running while the gate is closed, since it keeps
 * generating. Returns the function that unbinds (call it when the Group ends).
 */
export function bindBudgetsToGate(
  gate: Pick<GateControl, "state" | "onChange">,
  handles: readonly BudgetControl[],
  isProtected: (index: number) => boolean = () => false,
): () => void {
  const paused = handles.map(() => false);
  const apply = (open: boolean) => {
    handles.forEach((handle, i) => {
      const pause = !open && !isProtected(i);
      if (pause === paused[i]) return;
      paused[i] = pause;
      if (pause) handle.pause();
      else handle.resume();
    });
  };
  apply(gate.state === "open");
  return gate.onChange(({ state }) => apply(state === "open"));
}
