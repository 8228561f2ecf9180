import type { ContextLengthNumbers } from "./context-length-error";

const requestedPattern =
  /Requested token count exceeds the model's maximum context length(?: of (\d+) tokens)?(?:\. You requested a total of (\d+) tokens: (\d+) tokens from the input messages and (\d+) tokens for the completion)?/i;
const inputPattern = /The input \((\d+) tokens\) is longer than the model's context length \((\d+) tokens\)/i;
const genericPattern = /maximum context length|longer than the model's context length/i;

function toInt(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number.parseInt(value, 10);
}

/**
 * Recognises SGLang's context-length messages and extracts their numbers. Returns `undefined` when the
 * message is not about the context length.
 *
 * @example
 * parseContextLengthMessage("The input (5000 tokens) is longer than the model's context length (4096 tokens).")
 * // → { promptTokens: 5000, maxContextLength: 4096 }
 */
export function parseContextLengthMessage(message: string): ContextLengthNumbers | undefined {
  const requested = requestedPattern.exec(message);
  if (requested) {
    const numbers: ContextLengthNumbers = {};
    const max = toInt(requested[1]);
    if (max !== undefined) numbers.maxContextLength = max;
    const total = toInt(requested[2]);
    if (total !== undefined) numbers.totalTokens = total;
    const prompt = toInt(requested[3]);
    if (prompt !== undefined) numbers.promptTokens = prompt;
    const completion = toInt(requested[4]);
    if (completion !== undefined) numbers.requestedTokens = completion;
    return numbers;
  }
  const input = inputPattern.exec(message);
  if (input) return { promptTokens: toInt(input[1])!, maxContextLength: toInt(input[2])! };
  if (genericPattern.test(message)) return {};
  return undefined;
}
