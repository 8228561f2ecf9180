const marker = Symbol.for("relax.error.AgentSessionError");

/**
 * The agent's session boundary is unusable: a missing or malformed `RELAX_INPUT_JSON`, an unknown
 * `RELAX_ROLLOUT_MODE`, or an output that cannot be written. `field` names what was wrong, e.g.
 * `RELAX_INPUT_JSON.messages[0].role`.
 */
export class AgentSessionError extends Error {
  readonly [marker] = true;
  override readonly name = "AgentSessionError";
  /** The env variable or field path at fault. */
  readonly field: string;

  constructor({ field, reason, cause }: { field: string; reason: string; cause?: unknown }) {
    super(`${field}: ${reason}`, cause === undefined ? undefined : { cause });
    this.field = field;
  }

  /** True for an `AgentSessionError` from any copy of this module. */
  static isInstance(error: unknown): error is AgentSessionError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
