import {
  formatQwen3Assistant,
  lastUserQueryIndex,
  parseQwen3Prompt,
  type StandinPolicy,
} from "@relax-examples/kit";

/**
 * The minimal example's **stand-in policy** (a script, not a model): it answers the last user query of
 * the Qwen3-rendered prompt with a short reasoning block and one line that quotes the query, so the
 * minimal agent can run under Relax on a machine without a GPU.
 */
export const minimalPolicy: StandinPolicy = (request) => {
  const prompt = parseQwen3Prompt(request.promptText);
  const index = lastUserQueryIndex(prompt);
  const query = index < 0 ? "" : prompt.turns[index]!.content.trim().split("\n")[0]!;
  const thinkOpen = !(prompt.generationPrompt ?? "").includes("</think>");
  return {
    text: formatQwen3Assistant({
      ...(thinkOpen ? { reasoning: "One short answer is enough." } : {}),
      content: `Stand-in answer to: ${query.length > 80 ? `${query.slice(0, 80)}…` : query}`,
    }),
  };
};
