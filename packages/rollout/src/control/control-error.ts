import { hasMarker, RelaxError } from "@relax/chat";
import { type ControlStatusRow, STATUS_TABLE } from "@relax/protocol";
import type { ControlErrorCode } from "./control-schemas";

const marker = Symbol.for("relax.error.ControlError");

/**
 * A refusal or failure the control API answers with `{"error": {code, message, path?}}` and the code's
 * status in the one status table (`STATUS_TABLE` of `@relax/protocol`: 409 `step_out_of_order`, …).
 *
 * @example
 * throw new ControlError({ code: "step_out_of_order", message: "rollout_id 3 asked, next is 2", path: "rollout_id" });
 */
export class ControlError extends RelaxError {
  readonly [marker] = true;
  readonly code: ControlErrorCode;
  readonly path?: string;

  constructor({
    code,
    message,
    path,
    cause,
  }: {
    code: ControlErrorCode;
    message: string;
    path?: string;
    cause?: unknown;
  }) {
    super({ name: "ControlError", message, cause });
    this.code = code;
    if (path !== undefined) this.path = path;
  }

  /** The HTTP status of `code`, from `STATUS_TABLE` (every control code has a `control` row there). */
  get status(): number {
    const row: { status: number; control: ControlStatusRow } = STATUS_TABLE[this.code];
    return row.status;
  }

  /** True for any `ControlError`, including one from another copy of this module. */
  static override isInstance(error: unknown): error is ControlError {
    return hasMarker(error, "relax.error.ControlError");
  }
}
