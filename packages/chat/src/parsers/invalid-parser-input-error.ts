// The Relax error markers (STYLE.md §13): the base marker makes `RelaxError.isInstance` true as well.
const baseMarker = Symbol.for("relax.error");
const marker = Symbol.for("relax.error.InvalidParserInputError");

/** A `parseAssistantOutput` option of the wrong shape; `path` names the option (e.g. `finishReason`). */
export class InvalidParserInputError extends Error {
  readonly [baseMarker] = true;
  readonly [marker] = true;
  override readonly name = "InvalidParserInputError";
  /** The offending option, e.g. `tools[2]` or `finishReason`. */
  readonly path: string;
  /** The message without the path prefix. */
  readonly reason: string;

  constructor({ path, reason }: { path: string; reason: string }) {
    super(`${path}: ${reason}`);
    this.path = path;
    this.reason = reason;
  }

  /** True for any `InvalidParserInputError`, including one from another copy of this package. */
  static isInstance(error: unknown): error is InvalidParserInputError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}
