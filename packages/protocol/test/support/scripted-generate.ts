import type { AssistantTurn } from "@relax/chat";
import type { GenerateContext } from "../../src/index";

/**
 * A scripted `generate`: answers each call with the next queued turn and records what it was asked.
 * This is a test double for the gateway, not a model.
 */
export function scriptedGenerate(turns: AssistantTurn[]) {
  const calls: GenerateContext[] = [];
  const queue = [...turns];
  const generate = async (context: GenerateContext): Promise<AssistantTurn> => {
    calls.push(context);
    const turn = queue.shift();
    if (turn === undefined) throw new Error("scripted generate: no turn left");
    return turn;
  };
  return { generate, calls, queue };
}

/** Deterministic ids: `<prefix>_0001`, `<prefix>_0002`, … (one counter for all prefixes). */
export function counterIds(): (prefix: string) => string {
  let n = 0;
  return (prefix) => `${prefix}_${String(++n).padStart(4, "0")}`;
}

/** A tool-calling turn with reasoning and text, as a model with parsers produces it. */
export const TOOL_TURN: AssistantTurn = {
  message: {
    role: "assistant",
    content: "Let me check the weather.",
    reasoning_content: "The user wants the weather in Paris; call get_weather.",
    tool_calls: [
      {
        id: "call_7f3a9c",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' },
      },
    ],
  },
  finishReason: "tool_calls",
  usage: { promptTokens: 120, completionTokens: 34, cachedTokens: 96 },
};

/** A final text turn with reasoning. */
export const TEXT_TURN: AssistantTurn = {
  message: {
    role: "assistant",
    content: "It is 18 °C and sunny in Paris.",
    reasoning_content: "The tool said 18 and sunny.",
  },
  finishReason: "stop",
  usage: { promptTokens: 170, completionTokens: 12 },
};

/** A turn cut by the length limit. */
export const LENGTH_TURN: AssistantTurn = {
  message: { role: "assistant", content: "The history of Paris begins" },
  finishReason: "length",
  usage: { promptTokens: 30, completionTokens: 5 },
};
