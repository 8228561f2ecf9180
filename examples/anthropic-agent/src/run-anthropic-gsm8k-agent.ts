import type Anthropic from "@anthropic-ai/sdk";
import { extractFinalNumber, GSM8K_MAX_TURNS, runCalculator } from "@relax-examples/gsm8k-calculator";
import { calculatorAnthropicTool } from "./calculator-anthropic-tool";

/** Options of {@link runAnthropicGsm8kAgent}. */
export interface RunAnthropicGsm8kAgentOptions {
  /** An `@anthropic-ai/sdk` client (under Relax: `baseURL` = `RELAX_BASE_URL`, `apiKey` = session id). */
  client: Anthropic;
  /** @default "model" */
  model?: string;
  /** The `system` prompt, if any. */
  system?: string;
  /** The conversation so far; extended in place with every turn. */
  messages: Anthropic.MessageParam[];
  /** Most model requests. @default GSM8K_MAX_TURNS (10) */
  maxTurns?: number;
  /** `max_tokens` per turn (required by the Messages API). @default 2048 */
  maxTokens?: number;
}

/** What one episode produced. */
export interface AnthropicGsm8kEpisode {
  /** The conversation: input, assistant messages with their content blocks as returned, tool results. */
  messages: Anthropic.MessageParam[];
  predicted: string | null;
  turns: number;
  toolCalls: number;
  finish: "answer" | "max_turns";
}

/**
 * The GSM8K calculator agent through the official Anthropic SDK and `/v1/messages` with `stream: true`
 * (`messages.stream(...).finalMessage()`). Each assistant message is appended with its content blocks as
 * returned (`thinking` with its signature, `text`, `tool_use`); each `tool_use` is executed and answered
 * with a `tool_result` block in one user message. Ends when a reply has no `tool_use` block.
 * @throws the SDK's `APIError` when a request fails.
 */
export async function runAnthropicGsm8kAgent({
  client,
  model = "model",
  system,
  messages,
  maxTurns = GSM8K_MAX_TURNS,
  maxTokens = 2048,
}: RunAnthropicGsm8kAgentOptions): Promise<AnthropicGsm8kEpisode> {
  let toolCalls = 0;
  for (let turn = 1; turn <= maxTurns; turn++) {
    const stream = client.messages.stream({
      model,
      max_tokens: maxTokens,
      ...(system === undefined ? {} : { system }),
      messages,
      tools: [calculatorAnthropicTool as unknown as Anthropic.Tool],
    });
    const message = await stream.finalMessage();
    messages.push({ role: "assistant", content: message.content as Anthropic.ContentBlockParam[] });
    const uses = message.content.filter(
      (block): block is Anthropic.ToolUseBlock => block.type === "tool_use",
    );
    if (uses.length === 0) {
      const text = message.content
        .filter((block): block is Anthropic.TextBlock => block.type === "text")
        .map((block) => block.text)
        .join("");
      return { messages, predicted: extractFinalNumber(text), turns: turn, toolCalls, finish: "answer" };
    }
    const results: Anthropic.ToolResultBlockParam[] = uses.map((use) => {
      const content =
        use.name === calculatorAnthropicTool.name
          ? runCalculator(use.input)
          : `Error: unknown tool ${JSON.stringify(use.name)}`;
      return {
        type: "tool_result",
        tool_use_id: use.id,
        content,
        ...(content.startsWith("Error:") ? { is_error: true } : {}),
      };
    });
    toolCalls += uses.length;
    messages.push({ role: "user", content: results });
  }
  return { messages, predicted: null, turns: maxTurns, toolCalls, finish: "max_turns" };
}
