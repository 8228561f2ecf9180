import { hasMarker, RelaxError } from "@relax/chat";

const name = "SessionContextLengthError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A turn would exceed the session's `maxContextTokens`. Nothing was committed by the call that threw it.
 * It is the forest's side of the one "context length exceeded" concept; `@relax/sglang`'s
 * `ContextLengthError` is the engine's side, with the same field names and the same HTTP answer
 * (400 `context_length_exceeded`, `param: "messages"`).
 *
 * - `stage: "observation"`: the committed prefix plus the new observation leaves no room for one generated
 *   token (`promptTokens >= maxContextLength`).
 * - `stage: "generation"`: the engine returned more tokens than the budget left (`promptTokens +
 *   requestedTokens > maxContextLength`).
 */
export class SessionContextLengthError extends RelaxError {
  readonly [symbol] = true;
  /** The session's configured maximum context (`maxContextTokens`), in tokens. */
  readonly maxContextLength: number;
  /** Tokens of the prompt (committed prefix plus the new observation). */
  readonly promptTokens: number;
  /** Generated tokens the engine returned (generation stage only). */
  readonly requestedTokens: number | undefined;
  /** Total tokens the turn needed: `promptTokens` (+ `requestedTokens` at the generation stage). */
  readonly totalTokens: number;
  /** Which check failed. */
  readonly stage: "observation" | "generation";
  /** Session the turn belongs to. */
  readonly sessionId: string;

  constructor({
    maxContextLength,
    promptTokens,
    requestedTokens,
    stage,
    sessionId,
    cause,
  }: {
    maxContextLength: number;
    promptTokens: number;
    /** Generated tokens, for `stage: "generation"`. */
    requestedTokens?: number;
    stage: "observation" | "generation";
    sessionId: string;
    cause?: unknown;
  }) {
    const totalTokens = promptTokens + (requestedTokens ?? 0);
    super({
      name,
      message:
        stage === "observation"
          ? `context length exceeded in session ${sessionId}: the prompt needs ${promptTokens} tokens, leaving no room to generate within ${maxContextLength}`
          : `context length exceeded in session ${sessionId}: ${totalTokens} tokens (prompt ${promptTokens} + generated ${requestedTokens ?? 0}) exceed ${maxContextLength}`,
      cause,
    });
    this.maxContextLength = maxContextLength;
    this.promptTokens = promptTokens;
    this.requestedTokens = requestedTokens;
    this.totalTokens = totalTokens;
    this.stage = stage;
    this.sessionId = sessionId;
  }

  /** True for any `SessionContextLengthError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is SessionContextLengthError {
    return hasMarker(error, marker);
  }
}
