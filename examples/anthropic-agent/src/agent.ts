/**
 * Entry point of the Anthropic GSM8K agent: `node examples/anthropic-agent/dist/agent.js`.
 * Under Relax it reads the env contract (the SDK appends `/v1/messages` to `RELAX_BASE_URL`); run alone:
 * `[--index I | --question "…" --answer N]` with `ANTHROPIC_BASE_URL` / `ANTHROPIC_API_KEY` / `ANTHROPIC_MODEL`.
 */
import Anthropic from "@anthropic-ai/sdk";
import { gsm8kInputFromArgs, scoreGsm8kAnswer } from "@relax-examples/gsm8k-calculator";
import { readAgentSession, writeAgentOutput } from "@relax-examples/kit";
import { runAnthropicGsm8kAgent } from "./run-anthropic-gsm8k-agent";
import { toAnthropicMessages } from "./to-anthropic-messages";

try {
  const session = readAgentSession({
    provider: "anthropic",
    fallbackInput: () => gsm8kInputFromArgs(process.argv.slice(2)),
  });
  const answer = session.input.metadata?.answer;
  if (!session.input.messages?.length)
    throw new Error("RELAX_INPUT_JSON.messages: the GSM8K agent needs the question");
  if (typeof answer !== "string" && typeof answer !== "number") {
    throw new Error(
      "RELAX_INPUT_JSON.metadata.answer: the GSM8K agent needs the reference answer to score itself",
    );
  }
  const { system, messages } = toAnthropicMessages(session.input.messages);
  const client = new Anthropic({
    ...(session.baseURL === undefined ? {} : { baseURL: session.baseURL }),
    apiKey: session.apiKey,
    // Relax may hold a request (first-request barrier, partial rollout): wait, never retry.
    timeout: 9_999_000,
    maxRetries: 0,
  });
  const episode = await runAnthropicGsm8kAgent({
    client,
    model: session.model,
    ...(system === undefined ? {} : { system }),
    messages,
  });
  writeAgentOutput({
    outputPath: session.outputPath,
    output: {
      metadata: {
        answer: String(answer),
        predicted: episode.predicted,
        turns: episode.turns,
        tool_calls: episode.toolCalls,
        finish: episode.finish,
      },
      reward: scoreGsm8kAnswer({ predicted: episode.predicted, answer: String(answer) }),
    },
  });
  if (session.launchedBy === "standalone") console.error(JSON.stringify(episode.messages, null, 2));
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
