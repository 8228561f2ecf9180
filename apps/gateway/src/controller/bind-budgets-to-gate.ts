import type { GenerationGate } from "../service/generation-gate";

/** The part of an agent session handle that controls its active-time budget. */
export interface BudgetControl {
  pause(): void;
  resume(): void;
}

/**
 * Keeps the active-time budgets of a leased Group in step with the run's generation gate: while the gate
 * is closed (pausing or paused for a weight update) every budget is paused, so time held for the trainer
 * is not charged to the agents; on resume they count again. Pauses at once when the gate is already
 * closed. Returns the function that unbinds (call it when the Group ends).
 */
export function bindBudgetsToGate(gate: GenerationGate, handles: readonly BudgetControl[]): () => void {
  let paused = false;
  const apply = (open: boolean) => {
    if (open === !paused) return;
    paused = !open;
    for (const handle of handles) {
      if (open) handle.resume();
      else handle.pause();
    }
  };
  apply(gate.state === "open");
  return gate.onChange(({ state }) => apply(state === "open"));
}
