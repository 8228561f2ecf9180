import type OpenAI from "openai";
import { calculatorTool, runCalculator } from "./calculator-tool";
import { extractFinalNumber } from "./extract-final-number";

/**
 * Most model requests per episode. The longest reference solution in the bundled rows has 8 calculator
 * steps, so 10 leaves room for the answer and one correction.
 */
export const GSM8K_MAX_TURNS = 10;

/** Options of {@link runGsm8kAgent}. */
export interface RunGsm8kAgentOptions {
  /** An `openai` client pointed at the model API (under Relax: `RELAX_BASE_URL`, key = session id). */
  client: OpenAI;
  /** Model name sent in each request. @default "model" */
  model?: string;
  /** The conversation so far (the session input messages); extended in place with every turn. */
  messages: Array<Record<string, unknown>>;
  /** Most model requests before giving up. @default GSM8K_MAX_TURNS (10) */
  maxTurns?: number;
}

/** What one episode produced. */
export interface Gsm8kEpisode {
  /** The whole conversation: input, assistant messages as returned, tool results. */
  messages: Array<Record<string, unknown>>;
  /** The final number the model gave (normalised), or `null` if none. */
  predicted: string | null;
  /** Model requests made. */
  turns: number;
  /** Calculator calls executed. */
  toolCalls: number;
  /** `"answer"` when the model answered without tool calls, `"max_turns"` when the turn budget ran out. */
  finish: "answer" | "max_turns";
}

/**
 * The GSM8K calculator agent loop (Chat Completions through the official `openai` SDK): send the whole
 * conversation with the `calculator` tool; append the assistant message exactly as returned (so
 * `reasoning_content` and tool calls stay in the history, as Relax's SessionForest expects); execute each
 * tool call and append its result as a `tool` message; repeat until the model answers without tool calls
 * or `maxTurns` requests were made. The final number is read from `#### N` or the last number.
 * @throws the SDK's `APIError` when a request fails (the agent exits non-zero and Relax drops the Group).
 */
export async function runGsm8kAgent({
  client,
  model = "model",
  messages,
  maxTurns = GSM8K_MAX_TURNS,
}: RunGsm8kAgentOptions): Promise<Gsm8kEpisode> {
  let toolCalls = 0;
  for (let turn = 1; turn <= maxTurns; turn++) {
    const completion = await client.chat.completions.create({
      model,
      messages: messages as unknown as OpenAI.ChatCompletionMessageParam[],
      tools: [calculatorTool as unknown as OpenAI.ChatCompletionFunctionTool],
    });
    const message = completion.choices[0]?.message;
    if (!message) throw new Error("the model API returned no choice");
    messages.push(message as unknown as Record<string, unknown>);
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) {
      return {
        messages,
        predicted: extractFinalNumber(message.content ?? ""),
        turns: turn,
        toolCalls,
        finish: "answer",
      };
    }
    for (const call of calls) {
      const content =
        call.type === "function" && call.function.name === calculatorTool.function.name
          ? runCalculator(call.function.arguments)
          : `Error: unknown tool ${JSON.stringify(call.type === "function" ? call.function.name : call.type)}`;
      messages.push({ role: "tool", tool_call_id: call.id, content });
      toolCalls++;
    }
  }
  return { messages, predicted: null, turns: maxTurns, toolCalls, finish: "max_turns" };
}
