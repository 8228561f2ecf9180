import {
  formatQwen3Assistant,
  lastUserQueryIndex,
  parseQwen3Prompt,
  requestSeedKey,
  type StandinPolicy,
  type StandinPolicyRequest,
  seededFraction,
  systemText,
  toolResponsesAfter,
} from "@relax-examples/kit";
import {
  MAIN_SYSTEM_PROMPT,
  NO_ANSWER,
  QUESTION_INSTRUCTION,
  queryFromSearcherPrompt,
  SEARCHER_SYSTEM_PROMPT,
} from "./prompts";
import { normalizeAnswer } from "./score-answer";
import { searchTool } from "./search-tool";
import { readQuestions, type VeloranQuestion } from "./veloran-data";

/** Options of {@link createMultiAgentPolicy}. */
export interface MultiAgentPolicyOptions {
  /** Chance that one searcher answer is wrong (a distractor from the corpus). @default 0.15 */
  searcherErrorRate?: number;
  /** Questions the policy knows. @default the bundled 12 */
  questions?: readonly VeloranQuestion[];
}

/**
 * Creates the multi-agent **stand-in policy** (a script, not a model). It tells the two roles apart by the
 * system prompt in the Qwen3-rendered prompt:
 * - **main agent**: looks up the question, counts the `<tool_response>` blocks (searcher answers) so far,
 *   and emits the next reference search as a `search` tool call — filling `{i}` in the reference query
 *   with the answer actually received for hop `i` — then `Answer: <last search result>`; after a
 *   `No answer found.` it gives up with `Answer: unknown`;
 * - **searcher**: answers the query in its prompt with the reference answer for that query, or
 *   `No answer found.` for a query it does not know; with seeded chance (`searcherErrorRate`, keyed on the
 *   request's `rid` and sampling seed) it gives a wrong entity instead, so rewards vary within a Group.
 */
export function createMultiAgentPolicy({
  searcherErrorRate = 0.15,
  questions,
}: MultiAgentPolicyOptions = {}): StandinPolicy {
  let tables:
    | { byQuestion: Map<string, VeloranQuestion>; byQuery: Map<string, string>; entities: string[] }
    | undefined;
  const lookup = () => {
    if (tables) return tables;
    const rows = questions ?? readQuestions();
    const byQuery = new Map<string, string>();
    for (const row of rows) {
      const found = row.hops.map((hop) => hop.answer);
      for (const hop of row.hops) byQuery.set(normalizeAnswer(fillQuery(hop.query, found)), hop.answer);
    }
    tables = {
      byQuestion: new Map(rows.map((row) => [row.question.trim(), row])),
      byQuery,
      entities: [...new Set(byQuery.values())],
    };
    return tables;
  };

  return (request: StandinPolicyRequest) => {
    const prompt = parseQwen3Prompt(request.promptText);
    const thinkOpen = !(prompt.generationPrompt ?? "").includes("</think>");
    const say = (reasoning: string, rest: Parameters<typeof formatQwen3Assistant>[0]) => ({
      text: formatQwen3Assistant({ ...rest, ...(thinkOpen ? { reasoning } : {}) }),
    });
    const system = systemText(prompt);
    const queryIndex = lastUserQueryIndex(prompt);
    const userText = queryIndex < 0 ? "" : prompt.turns[queryIndex]!.content;
    const { byQuestion, byQuery, entities } = lookup();

    if (system.startsWith(SEARCHER_SYSTEM_PROMPT)) {
      const query = queryFromSearcherPrompt(userText) ?? "";
      const answer = byQuery.get(normalizeAnswer(query));
      if (answer === undefined) return say("The passages do not answer this query.", { content: NO_ANSWER });
      const roll = seededFraction(requestSeedKey(request, `searcher|${query}`));
      if (roll < searcherErrorRate) {
        const others = entities.filter((entity) => entity !== answer);
        const wrong = others[Math.floor((roll / searcherErrorRate) * others.length)]!;
        return say(`The passages seem to say ${wrong}.`, { content: wrong });
      }
      return say(`The passages say ${answer}.`, { content: answer });
    }

    if (system.startsWith(MAIN_SYSTEM_PROMPT)) {
      const question = userText.endsWith(QUESTION_INSTRUCTION)
        ? userText.slice(0, -QUESTION_INSTRUCTION.length).trim()
        : userText.trim();
      const row = byQuestion.get(question);
      if (!row) return say("This question is not in my notes.", { content: "Answer: unknown" });
      const found = toolResponsesAfter(prompt, queryIndex).map((text) => text.trim());
      const last = found.at(-1);
      if (last === NO_ANSWER)
        return say("The searcher found nothing; I cannot answer.", { content: "Answer: unknown" });
      if (found.length < row.hops.length) {
        const query = fillQuery(row.hops[found.length]!.query, found);
        return say(`Hop ${found.length + 1} of ${row.hops.length}: I need to know the ${query}.`, {
          toolCalls: [{ name: searchTool.function.name, arguments: { query } }],
        });
      }
      return say(`The searches found ${last}.`, { content: `Answer: ${last}` });
    }

    return say("This is not a task I know.", {
      content: "I can only answer questions about the Veloran Isles.",
    });
  };
}

/** Replaces `{i}` in a reference query with the answer found for hop `i`. */
function fillQuery(template: string, found: readonly string[]): string {
  return template.replace(/\{(\d+)\}/g, (placeholder, index: string) => found[Number(index)] ?? placeholder);
}

/** The multi-agent stand-in policy with default options. */
export const multiAgentPolicy: StandinPolicy = createMultiAgentPolicy();
