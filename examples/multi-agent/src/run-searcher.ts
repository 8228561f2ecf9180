import type OpenAI from "openai";
import { buildSearcherPrompt, SEARCHER_SYSTEM_PROMPT } from "./prompts";
import { retrievePassages } from "./retrieve-passages";
import type { CorpusDocument } from "./veloran-data";

/** What one searcher sub-agent produced. */
export interface SearcherRun {
  /** The searcher's answer text (trimmed content of its reply), returned to the main agent as the tool result. */
  answer: string;
  /** The searcher's conversation as sent, plus its reply as returned: its export record's messages. */
  messages: Array<Record<string, unknown>>;
  /** Ids of the passages it was shown, best first. */
  passageIds: string[];
}

/**
 * Runs one searcher sub-agent: retrieves passages for the query from the local corpus, then asks the
 * model — a separate conversation through the same client (same base URL and session id) — to answer
 * from them. One request, no tools.
 * @throws the SDK's `APIError` when the request fails.
 */
export async function runSearcher({
  client,
  model = "model",
  query,
  corpus,
}: {
  client: OpenAI;
  model?: string;
  query: string;
  corpus: readonly CorpusDocument[];
}): Promise<SearcherRun> {
  const passages = retrievePassages({ corpus, query });
  const messages: Array<Record<string, unknown>> = [
    { role: "system", content: SEARCHER_SYSTEM_PROMPT },
    { role: "user", content: buildSearcherPrompt(query, passages) },
  ];
  const completion = await client.chat.completions.create({
    model,
    messages: messages as unknown as OpenAI.ChatCompletionMessageParam[],
  });
  const message = completion.choices[0]?.message;
  if (!message) throw new Error("the model API returned no choice");
  return {
    answer: (message.content ?? "").trim(),
    messages: [...messages, message as unknown as Record<string, unknown>],
    passageIds: passages.map((passage) => passage.id),
  };
}
