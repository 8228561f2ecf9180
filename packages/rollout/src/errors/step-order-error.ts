import { hasMarker, RelaxError } from "@relax/chat";

const stepOrderErrorSymbol = Symbol.for("relax.error.StepOrderError");

/** The step asked is not the next one ({@link StepDriver.nextRolloutId}). */
export class StepOrderError extends RelaxError {
  readonly [stepOrderErrorSymbol] = true;

  constructor({ message }: { message: string }) {
    super({ name: "StepOrderError", message });
  }

  /** True for any `StepOrderError`, from any copy of this package. */
  static override isInstance(error: unknown): error is StepOrderError {
    return hasMarker(error, "relax.error.StepOrderError");
  }
}
