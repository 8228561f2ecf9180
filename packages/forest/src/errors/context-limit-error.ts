import { RelaxError } from "@relax/chat";

const name = "ContextLimitError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A turn would exceed the session's `maxContextTokens`. Nothing was committed by the call that threw it.
 *
 * - `stage: "observation"`: the committed prefix plus the new observation leaves no room for one generated
 *   token (`promptTokens >= limit`, as the Python Relax `context_length_exceeded` check).
 * - `stage: "generation"`: the engine returned more tokens than the budget left (`promptTokens +
 *   generated > limit`).
 *
 * Protocol layers map it to a 400 `context_length_exceeded`.
 */
export class ContextLimitError extends RelaxError {
  readonly [symbol] = true;
  /** The configured maximum context, in tokens. */
  readonly limit: number;
  /** Total tokens the turn needed: prompt tokens (observation stage) or prompt + generated (generation). */
  readonly requested: number;
  /** Tokens of the prompt (committed prefix plus the new observation). */
  readonly promptTokens: number;
  /** Which check failed. */
  readonly stage: "observation" | "generation";
  /** Session the turn belongs to. */
  readonly sessionId: string;

  constructor(options: {
    limit: number;
    requested: number;
    promptTokens: number;
    stage: "observation" | "generation";
    sessionId: string;
  }) {
    const { limit, requested, promptTokens, stage, sessionId } = options;
    super({
      name,
      message:
        stage === "observation"
          ? `context limit exceeded in session ${sessionId}: the prompt needs ${promptTokens} tokens, leaving no room to generate within ${limit}`
          : `context limit exceeded in session ${sessionId}: ${requested} tokens (prompt ${promptTokens} + generated ${requested - promptTokens}) exceed ${limit}`,
    });
    this.limit = limit;
    this.requested = requested;
    this.promptTokens = promptTokens;
    this.stage = stage;
    this.sessionId = sessionId;
  }

  /** True for any `ContextLimitError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is ContextLimitError {
    return RelaxError.hasMarker(error, marker);
  }
}
