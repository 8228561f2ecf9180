/**
 * Entry point of the multi-agent example: `node examples/multi-agent/dist/agent.js`.
 * Under Relax it reads the env contract and writes JSONL export records; run alone:
 * `[--index I | --question "…" --answer A]` with `OPENAI_BASE_URL` / `OPENAI_API_KEY` / `OPENAI_MODEL`.
 */
import { readAgentSession, writeAgentOutput } from "@relax-examples/kit";
import OpenAI from "openai";
import { z } from "zod";
import { multiAgentInputFromArgs } from "./multi-agent-session-input";
import { runMultiAgent } from "./run-multi-agent";
import { readCorpus } from "./veloran-data";

try {
  const session = readAgentSession({
    provider: "openai",
    fallbackInput: () => multiAgentInputFromArgs(process.argv.slice(2)),
  });
  if (!session.input.messages?.length)
    throw new Error("RELAX_INPUT_JSON.messages: the agent needs the question");
  const answers = z.array(z.string()).safeParse(session.input.metadata?.answers);
  if (!answers.success)
    throw new Error("RELAX_INPUT_JSON.metadata.answers: must be a list of accepted answers");
  const client = new OpenAI({
    baseURL: session.baseURL,
    apiKey: session.apiKey,
    timeout: 9_999_000,
    maxRetries: 0,
  });
  const episode = await runMultiAgent({
    client,
    model: session.model,
    messages: session.input.messages,
    answers: answers.data,
    corpus: readCorpus(),
    rolloutMode: session.rolloutMode,
  });
  writeAgentOutput({ outputPath: session.outputPath, output: episode.records });
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
