const marker = Symbol.for("relax.error.ForestInputError");

/**
 * Invalid input to a `SessionForest` call: `path` names the field (`outputIds[3]`, `logprobs`,
 * `state.messages`, `plan`), `reason` says what is wrong. Nothing was committed by the call that threw it.
 */
export class ForestInputError extends Error {
  readonly [marker] = true;
  override readonly name = "ForestInputError";
  /** Field path of the offending value. */
  readonly path: string;
  /** The message without the path prefix. */
  readonly reason: string;

  constructor({ path, reason }: { path: string; reason: string }) {
    super(`${path}: ${reason}`);
    this.path = path;
    this.reason = reason;
  }

  /** True for any `ForestInputError`, including one from another copy of this package. */
  static isInstance(error: unknown): error is ForestInputError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
