import type { ExportRecord } from "@relax-examples/kit";
import type OpenAI from "openai";
import { MAIN_SYSTEM_PROMPT } from "./prompts";
import { runSearcher } from "./run-searcher";
import { extractAnswer, scoreAnswer } from "./score-answer";
import { searchArgumentsSchema, searchTool } from "./search-tool";
import type { CorpusDocument } from "./veloran-data";

/** Most main-agent requests per session. The longest reference chain has 3 hops. */
export const MAIN_MAX_TURNS = 6;

/** Options of {@link runMultiAgent}. */
export interface RunMultiAgentOptions {
  client: OpenAI;
  /** @default "model" */
  model?: string;
  /** The session input messages (the question); the main agent puts its system prompt first. */
  messages: ReadonlyArray<Record<string, unknown>>;
  /** Accepted answers, for the reward. */
  answers: readonly string[];
  corpus: readonly CorpusDocument[];
  /** In `"eval"` only the `main` context is exported. @default "train" */
  rolloutMode?: "train" | "eval";
  /** @default MAIN_MAX_TURNS (6) */
  maxTurns?: number;
}

/** What one multi-agent session produced. */
export interface MultiAgentEpisode {
  /** Explicit export records: `main` (with the reward) and, in train, `searcher_0..k` (no reward). */
  records: ExportRecord[];
  predicted: string | null;
  reward: 0 | 1;
  /** Main-agent requests made. */
  turns: number;
  /** Searcher sub-agents run. */
  searches: number;
}

/**
 * The multi-agent application: a main agent (Chat Completions, `search` tool) whose every search call runs
 * a searcher sub-agent in its own conversation. The session exports several training contexts explicitly
 * (see docs/contract.md#export-records): `main` — its last request's messages plus its final reply,
 * its exact tools, metadata `{role, outcome, predicted, searches}` and the reward — and one `searcher_<i>`
 * per search with metadata `{role, query, outcome}` and no reward (only `main` carries the reward, as
 * `--log-passrate` expects). Credit between them comes from the custom advantage (`advantage.ts`).
 * @throws the SDK's `APIError` when a request fails.
 */
export async function runMultiAgent({
  client,
  model = "model",
  messages: input,
  answers,
  corpus,
  rolloutMode = "train",
  maxTurns = MAIN_MAX_TURNS,
}: RunMultiAgentOptions): Promise<MultiAgentEpisode> {
  const messages: Array<Record<string, unknown>> = [
    { role: "system", content: MAIN_SYSTEM_PROMPT },
    ...input,
  ];
  const searchers: Array<{ query: string; messages: Array<Record<string, unknown>>; passageIds: string[] }> =
    [];
  let mainContext: Array<Record<string, unknown>> = [];
  let finalText: string | null = null;
  let turns = 0;
  while (turns < maxTurns) {
    turns++;
    const completion = await client.chat.completions.create({
      model,
      messages: messages as unknown as OpenAI.ChatCompletionMessageParam[],
      tools: [searchTool as unknown as OpenAI.ChatCompletionFunctionTool],
    });
    const message = completion.choices[0]?.message;
    if (!message) throw new Error("the model API returned no choice");
    messages.push(message as unknown as Record<string, unknown>);
    // The committed state of this context: what was sent plus the reply, before any tool result.
    mainContext = [...messages];
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) {
      finalText = message.content ?? "";
      break;
    }
    for (const call of calls) {
      let content: string;
      const parsed =
        call.type === "function" && call.function.name === searchTool.function.name
          ? searchArgumentsSchema.safeParse(safeJson(call.function.arguments))
          : undefined;
      if (parsed?.success) {
        const searcher = await runSearcher({ client, model, query: parsed.data.query, corpus });
        searchers.push({
          query: parsed.data.query,
          messages: searcher.messages,
          passageIds: searcher.passageIds,
        });
        content = searcher.answer;
      } else {
        content = parsed ? 'Error: arguments must be {"query": string}' : "Error: unknown tool";
      }
      messages.push({ role: "tool", tool_call_id: call.id, content });
    }
  }
  const predicted = finalText === null ? null : extractAnswer(finalText);
  const reward = scoreAnswer({ predicted, answers });
  const records: ExportRecord[] = [
    {
      name: "main",
      messages: mainContext,
      tools: [searchTool],
      metadata: { role: "main", outcome: reward, predicted, searches: searchers.length },
      reward,
    },
  ];
  if (rolloutMode === "train") {
    searchers.forEach((searcher, i) => {
      records.push({
        name: `searcher_${i}`,
        messages: searcher.messages,
        metadata: { role: "searcher", query: searcher.query, passages: searcher.passageIds, outcome: reward },
      });
    });
  }
  return { records, predicted, reward, turns, searches: searchers.length };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
