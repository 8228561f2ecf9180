/**
 * Entry point of the GSM8K calculator agent: `node examples/gsm8k-calculator/dist/agent.js`.
 * Under Relax it reads the env contract; run alone: `[--index I | --question "…" --answer N]` with
 * `OPENAI_BASE_URL` / `OPENAI_API_KEY` / `OPENAI_MODEL`.
 */
import { readAgentSession, writeAgentOutput } from "@relax-examples/kit";
import OpenAI from "openai";
import { scoreGsm8kAnswer } from "./extract-final-number";
import { gsm8kInputFromArgs } from "./gsm8k-session-input";
import { runGsm8kAgent } from "./run-gsm8k-agent";

try {
  const session = readAgentSession({
    provider: "openai",
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
  const client = new OpenAI({
    baseURL: session.baseURL,
    apiKey: session.apiKey,
    timeout: 9_999_000,
    maxRetries: 0,
  });
  const episode = await runGsm8kAgent({
    client,
    model: session.model,
    messages: [...session.input.messages],
  });
  const reward = scoreGsm8kAnswer({ predicted: episode.predicted, answer: String(answer) });
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
      reward,
    },
  });
  if (session.launchedBy === "standalone") console.error(JSON.stringify(episode.messages, null, 2));
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
