import { hasMarker, RelaxError } from "@relax/chat";

const pauseCancelledSymbol = Symbol.for("relax.error.GatePauseCancelledError");

/** Thrown by a pending `GenerationGate.pause` when `resume` reopened the gate before quiescence. */
export class GatePauseCancelledError extends RelaxError {
  readonly [pauseCancelledSymbol] = true;
  constructor() {
    super({ name: "GatePauseCancelledError", message: "resumed before generation stopped" });
  }

  /** True for any `GatePauseCancelledError`, from any copy of this package. */
  static override isInstance(error: unknown): error is GatePauseCancelledError {
    return hasMarker(error, "relax.error.GatePauseCancelledError");
  }
}
