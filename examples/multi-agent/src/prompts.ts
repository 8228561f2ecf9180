import type { CorpusDocument } from "./veloran-data";

/** The main agent's system prompt. The stand-in policy recognises the main agent by its first words. */
export const MAIN_SYSTEM_PROMPT =
  "You are a research assistant answering questions about the Veloran Isles. You cannot read the archive yourself: " +
  "call the search tool with one short query at a time, and a searcher will answer it from the archive. " +
  "When you know the answer, reply with a final line 'Answer: <short answer>'.";

/** The searcher sub-agent's system prompt. The stand-in policy recognises a searcher by its first words. */
export const SEARCHER_SYSTEM_PROMPT =
  "You are a searcher. Answer the query with a short phrase taken from the passages. " +
  "If the passages do not contain the answer, reply exactly 'No answer found.'";

/** The searcher's reply when the passages lack the answer. */
export const NO_ANSWER = "No answer found.";

/** The instruction appended to each dataset question. */
export const QUESTION_INSTRUCTION =
  "Search as often as you need, then give the final line 'Answer: <short answer>'.";

/** The user prompt for a question: the question, a blank line, then {@link QUESTION_INSTRUCTION}. */
export function buildQuestionPrompt(question: string): string {
  return `${question}\n\n${QUESTION_INSTRUCTION}`;
}

/** The question inside a prompt built by {@link buildQuestionPrompt} (the text itself otherwise). */
export function questionFromPrompt(prompt: string): string {
  const suffix = `\n\n${QUESTION_INSTRUCTION}`;
  return (prompt.endsWith(suffix) ? prompt.slice(0, -suffix.length) : prompt).trim();
}

/** The searcher's user message: the query and the numbered passages. */
export function buildSearcherPrompt(query: string, passages: readonly CorpusDocument[]): string {
  const listed = passages.map((passage, i) => `[${i + 1}] ${passage.title}: ${passage.text}`).join("\n");
  return `Query: ${query}\n\nPassages:\n${passages.length > 0 ? listed : "(none)"}`;
}

/** The query inside a searcher prompt, or `undefined`. */
export function queryFromSearcherPrompt(prompt: string): string | undefined {
  return /^Query: (.*)$/m.exec(prompt)?.[1]?.trim();
}
