// The Relax error markers (STYLE.md §13): the base marker makes `RelaxError.isInstance` true as well.
const baseMarker = Symbol.for("relax.error");
const marker = Symbol.for("relax.error.UnknownParserError");

/**
 * A tool-call or reasoning parser name that is not registered. The message lists the valid names, so a
 * misspelt `--tool-call-parser` setting is easy to fix.
 */
export class UnknownParserError extends Error {
  readonly [baseMarker] = true;
  readonly [marker] = true;
  override readonly name = "UnknownParserError";
  /** Which registry was asked. */
  readonly parserKind: "tool_call" | "reasoning";
  /** The name that was asked for. */
  readonly parserName: string;
  /** The registered names, aliases included. */
  readonly validNames: readonly string[];

  constructor({
    parserKind,
    parserName,
    validNames,
  }: {
    parserKind: "tool_call" | "reasoning";
    parserName: string;
    validNames: readonly string[];
  }) {
    const label = parserKind === "tool_call" ? "tool-call" : "reasoning";
    super(`unknown ${label} parser ${JSON.stringify(parserName)}; valid names: ${validNames.join(", ")}`);
    this.parserKind = parserKind;
    this.parserName = parserName;
    this.validNames = validNames;
  }

  /** True for any `UnknownParserError`, including one from another copy of this package. */
  static isInstance(error: unknown): error is UnknownParserError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}
