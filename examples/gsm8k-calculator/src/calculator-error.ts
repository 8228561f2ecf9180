const marker = Symbol.for("relax.error.CalculatorError");

/** An expression the calculator tool cannot evaluate: a syntax error, a disallowed construct, or a non-finite result. */
export class CalculatorError extends Error {
  readonly [marker] = true;
  override readonly name = "CalculatorError";
  /** The expression as given. */
  readonly expression: string;

  constructor({ expression, reason, cause }: { expression: string; reason: string; cause?: unknown }) {
    super(reason, cause === undefined ? undefined : { cause });
    this.expression = expression;
  }

  /** True for a `CalculatorError` from any copy of this module. */
  static isInstance(error: unknown): error is CalculatorError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
