import { hasMarker, RelaxError } from "./relax-error";

const name = "ObservationDeltaError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * Why the template cannot give a stable observation delta:
 * - `render_failed`: the template rejected the dummy prefix plus the new messages (see `cause`);
 * - `text_not_prefix`: the render of the dummy prefix is not a text prefix of the render with the new
 *   messages (the template rewrites earlier turns when later ones arrive);
 * - `tokens_not_prefix`: the dummy's token ids are not a token prefix of the full render's ids (BPE
 *   merges across the boundary);
 * - `not_special_boundary`: the delta neither starts with nor follows a special token, so tokenizing it
 *   alone could differ from tokenizing it in context;
 * - `unstable_turn_close`: the template closes assistant turns differently from the dummy's last turn,
 *   so the response's end cannot be joined to the delta;
 * - `empty_messages`: there is no message to render.
 */
export type ObservationDeltaFailure =
  | "render_failed"
  | "text_not_prefix"
  | "tokens_not_prefix"
  | "not_special_boundary"
  | "unstable_turn_close"
  | "empty_messages";

/**
 * The chat template cannot give a stable observation delta for these messages. Relax never guesses
 * a delta: the caller decides (re-render the whole conversation as a new subtree, or refuse the turn).
 */
export class ObservationDeltaError extends RelaxError {
  readonly [symbol] = true;
  /** What check failed. */
  readonly reason: ObservationDeltaFailure;

  constructor({
    reason,
    message,
    cause,
  }: { reason: ObservationDeltaFailure; message: string; cause?: unknown }) {
    super({ name, message: `observation delta (${reason}): ${message}`, cause });
    this.reason = reason;
  }

  /** True for any `ObservationDeltaError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is ObservationDeltaError {
    return hasMarker(error, marker);
  }
}
