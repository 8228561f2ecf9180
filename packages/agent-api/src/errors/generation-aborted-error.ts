import { hasMarker, RelaxError } from "@relax/chat";

const generationAborted = Symbol.for("relax.error.GenerationAbortedError");

/**
 * The engine ended a turn with `finish_reason: abort` although neither the agent nor the session asked
 * for it (a scheduler abort: out of memory, a pause in `abort` mode). The error table answers 503
 * `generation_aborted`, retryable; nothing was committed.
 */
export class GenerationAbortedError extends RelaxError {
  readonly [generationAborted] = true;
  /** The rid of the aborted `/generate` call. */
  readonly rid: string;

  constructor({ rid, detail, cause }: { rid: string; detail: string; cause?: unknown }) {
    super({
      name: "GenerationAbortedError",
      message: `the inference backend aborted the generation${detail ? `: ${detail}` : ""}`,
      cause,
    });
    this.rid = rid;
  }

  /** True for any `GenerationAbortedError`, from any copy of this package. */
  static override isInstance(error: unknown): error is GenerationAbortedError {
    return hasMarker(error, "relax.error.GenerationAbortedError");
  }
}
