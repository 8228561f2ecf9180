import { readFileSync, writeFileSync } from "node:fs";
import OpenAI from "openai";

/** The question asked when the agent runs alone without an argument. */
export const DEFAULT_QUESTION = "In one sentence: why is the sky blue?";

/** Options of {@link runMinimalAgent}. */
export interface RunMinimalAgentOptions {
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Command-line arguments after the script (`argv[0]` is a question when run alone). @default [] */
  argv?: readonly string[];
  /** Where the standalone output is printed. @default process.stdout */
  stdout?: { write(text: string): unknown };
}

/**
 * A minimal agent application, in TypeScript: read the session messages, make one chat
 * completion through the official `openai` SDK, append the returned assistant message (whole, so that
 * `reasoning_content` and tool calls stay), and write `{metadata: {task_success: 1.0}, reward: 1.0}`.
 *
 * Under Relax the env contract gives `RELAX_INPUT_JSON`, `RELAX_OUTPUT_JSON`, `RELAX_BASE_URL` and
 * `RELAX_SESSION_ID` (the API key). Run alone, it uses `OPENAI_BASE_URL` / `OPENAI_API_KEY` /
 * `OPENAI_MODEL`, takes the question from `argv[0]`, and prints the conversation and output.
 * @see docs/contract.md#agent-process-contract
 * @returns The conversation: the input messages plus the assistant message.
 */
export async function runMinimalAgent({
  env = process.env,
  argv = [],
  stdout = process.stdout,
}: RunMinimalAgentOptions = {}): Promise<Array<Record<string, unknown>>> {
  const inputPath = env.RELAX_INPUT_JSON;
  const input = inputPath
    ? (JSON.parse(readFileSync(inputPath, "utf8")) as { messages?: Array<Record<string, unknown>> })
    : { messages: [{ role: "user", content: argv[0] ?? DEFAULT_QUESTION }] };
  if (!Array.isArray(input.messages) || input.messages.length === 0) {
    throw new Error("RELAX_INPUT_JSON.messages: the minimal agent needs a non-empty list of messages");
  }
  const messages = input.messages;

  const client = new OpenAI({
    baseURL: env.RELAX_BASE_URL || env.OPENAI_BASE_URL || undefined,
    apiKey: env.RELAX_SESSION_ID || env.OPENAI_API_KEY || "EMPTY",
    // Relax may hold a request (first-request barrier, partial rollout): wait, never retry.
    timeout: 9_999_000,
    maxRetries: 0,
  });
  const response = await client.chat.completions.create({
    model: env.OPENAI_MODEL || "model",
    messages: messages as unknown as OpenAI.ChatCompletionMessageParam[],
  });
  const message = response.choices[0]?.message;
  if (!message) throw new Error("the model API returned no choice");
  messages.push(message as unknown as Record<string, unknown>);

  const output = { metadata: { task_success: 1.0 }, reward: 1.0 };
  if (env.RELAX_OUTPUT_JSON) {
    writeFileSync(env.RELAX_OUTPUT_JSON, JSON.stringify(output), "utf8");
  } else {
    stdout.write(`${JSON.stringify({ messages, output }, null, 2)}\n`);
  }
  return messages;
}
