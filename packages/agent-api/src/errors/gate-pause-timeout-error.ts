import { hasMarker, RelaxError } from "@relax/chat";

const pauseTimeoutSymbol = Symbol.for("relax.error.GatePauseTimeoutError");

/** Thrown by `GenerationGate.pause` when quiescence takes longer than `timeoutMs`; the gate stays closed. */
export class GatePauseTimeoutError extends RelaxError {
  readonly [pauseTimeoutSymbol] = true;
  readonly generating: number;
  constructor({ timeoutMs, generating }: { timeoutMs: number; generating: number }) {
    super({
      name: "GatePauseTimeoutError",
      message: `generation did not stop within ${timeoutMs} ms (${generating} engine calls still in flight)`,
    });
    this.generating = generating;
  }

  /** True for any `GatePauseTimeoutError`, from any copy of this package. */
  static override isInstance(error: unknown): error is GatePauseTimeoutError {
    return hasMarker(error, "relax.error.GatePauseTimeoutError");
  }
}
