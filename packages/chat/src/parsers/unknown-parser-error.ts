import { ERROR_EXIT } from "../errors/error-exit";
import { hasMarker, RelaxError } from "../errors/relax-error";

const name = "UnknownParserError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A tool-call or reasoning parser name that is not registered. The message lists the valid names, so a
 * misspelt `--tool-call-parser` setting is easy to fix.
 */
export class UnknownParserError extends RelaxError {
  readonly [symbol] = true;
  /** Ends a command line with exit 1 and the message alone (see `ErrorExitCategory`). */
  readonly [ERROR_EXIT] = "failure" as const;
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
    super({
      name,
      message: `unknown ${label} parser ${JSON.stringify(parserName)}; valid names: ${validNames.join(", ")}`,
    });
    this.parserKind = parserKind;
    this.parserName = parserName;
    this.validNames = validNames;
  }

  /** True for any `UnknownParserError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is UnknownParserError {
    return hasMarker(error, marker);
  }
}
