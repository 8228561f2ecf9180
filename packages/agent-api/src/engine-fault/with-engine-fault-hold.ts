import type { GateChange, GateControl, GenerationGateState } from "../gate/generation-gate";

/** The part of an `EngineFaultHold` that budgets follow. */
export interface HeldTurnsSource {
  /** Turns held for an engine failure now. */
  readonly held: number;
  /** Calls `listener(held)` when the first turn is held and when the last one goes on. */
  onChange(listener: (held: boolean) => void): () => void;
}

/**
 * The generation gate as the Groups' active-time budgets see it (`bindBudgetsToGate`): closed while the
 * gate is closed **or** while turns are held for an engine failure (docs/contract.md#engine-failures), so
 * time an agent waits for a dead, hung or externally paused engine is not charged to it. Without `faults`
 * it is the gate itself.
 */
export function withEngineFaultHold(
  gate: Pick<GateControl, "state" | "onChange" | "weightVersion">,
  faults: HeldTurnsSource | undefined,
): Pick<GateControl, "state" | "onChange"> {
  if (faults === undefined) return gate;
  const state = (): GenerationGateState => (faults.held > 0 && gate.state === "open" ? "paused" : gate.state);
  return {
    get state() {
      return state();
    },
    onChange(listener: (change: GateChange) => void) {
      const notify = () => listener({ state: state(), weightVersion: gate.weightVersion });
      const offGate = gate.onChange(notify);
      const offFaults = faults.onChange(notify);
      return () => {
        offGate();
        offFaults();
      };
    },
  };
}
