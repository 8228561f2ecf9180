import { hasMarker } from "./has-marker";
import { SglangApiError } from "./sglang-api-error";

const marker = "relax.error.ContextLengthError";
const symbol = Symbol.for(marker);

/** Numbers parsed from SGLang's context-length messages; any of them may be missing. */
export interface ContextLengthNumbers {
  /** Prompt tokens as SGLang counted them (`len(input_ids)`, plus any reserved tokens). */
  promptTokens?: number;
  /** The server's context length in tokens. */
  maxContextLength?: number;
  /** Completion tokens requested (`max_new_tokens`). */
  requestedTokens?: number;
  /** `promptTokens + requestedTokens` as SGLang reported it. */
  totalTokens?: number;
}

/**
 * SGLang refused a request because the prompt, or prompt plus `max_new_tokens`, does not fit the context
 * length (HTTP 400). The numbers are parsed from either of SGLang's wordings:
 * - "The input (N tokens) is longer than the model's context length (M tokens)." (`len(input_ids) >= M`)
 * - "Requested token count exceeds the model's maximum context length of M tokens. You requested a total
 *   of T tokens: N tokens from the input messages and K tokens for the completion. ..."
 *   (`N + max_new_tokens >= M`)
 *
 * @see SGLang `TokenizerManager._validate_one_request`; Relax answers both with
 *   `context_length_exceeded` (400; see docs/contract.md#errors).
 */
export class ContextLengthError extends SglangApiError {
  readonly [symbol] = true;
  override readonly name: string = "ContextLengthError";
  readonly promptTokens?: number | undefined;
  readonly maxContextLength?: number | undefined;
  readonly requestedTokens?: number | undefined;
  readonly totalTokens?: number | undefined;

  constructor({
    status,
    body,
    url,
    serverMessage,
    numbers,
    cause,
  }: {
    status: number;
    body: unknown;
    url: string;
    serverMessage?: string | undefined;
    numbers: ContextLengthNumbers;
    cause?: unknown;
  }) {
    super({ status, body, url, serverMessage, cause });
    this.promptTokens = numbers.promptTokens;
    this.maxContextLength = numbers.maxContextLength;
    this.requestedTokens = numbers.requestedTokens;
    this.totalTokens = numbers.totalTokens;
  }

  override get isRetryable(): boolean {
    return false;
  }

  /** True for any `ContextLengthError`, from any copy of this package. */
  static override isInstance(error: unknown): error is ContextLengthError {
    return hasMarker(error, marker);
  }
}
