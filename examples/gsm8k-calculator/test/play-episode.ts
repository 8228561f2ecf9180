import type { StandinPolicy } from "@relax-examples/kit";
import { generateWithPolicy, type PolicyTurn } from "@relax-examples/kit/testing";
import { calculatorTool, runCalculator } from "../src/calculator-tool";
import { extractFinalNumber } from "../src/extract-final-number";
import { buildGsm8kPrompt } from "../src/gsm8k-prompt";
import { GSM8K_MAX_TURNS } from "../src/run-gsm8k-agent";

/** One simulated session: the policy plays the model through the real Qwen3 template; the calculator runs for real. */
export async function playEpisode({
  policy,
  question,
  sessionId,
  tokenize = false,
}: {
  policy: StandinPolicy;
  question: string;
  sessionId: string;
  tokenize?: boolean;
}): Promise<{ predicted: string | null; turns: PolicyTurn[]; messages: Array<Record<string, unknown>> }> {
  const messages: Array<Record<string, unknown>> = [{ role: "user", content: buildGsm8kPrompt(question) }];
  const turns: PolicyTurn[] = [];
  for (let turn = 1; turn <= GSM8K_MAX_TURNS; turn++) {
    const generated = await generateWithPolicy({
      policy,
      messages,
      tools: [calculatorTool],
      rid: `${sessionId}-turn-${turn}`,
      tokenize,
    });
    turns.push(generated);
    messages.push({
      role: "assistant",
      content: generated.content,
      ...(generated.reasoning === undefined ? {} : { reasoning_content: generated.reasoning }),
      ...(generated.toolCalls.length === 0
        ? {}
        : {
            tool_calls: generated.toolCalls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: JSON.stringify(call.arguments) },
            })),
          }),
    });
    if (generated.toolCalls.length === 0)
      return { predicted: extractFinalNumber(generated.content), turns, messages };
    for (const call of generated.toolCalls) {
      messages.push({ role: "tool", tool_call_id: call.id, content: runCalculator(call.arguments) });
    }
  }
  return { predicted: null, turns, messages };
}
