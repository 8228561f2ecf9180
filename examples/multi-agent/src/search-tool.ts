import { z } from "zod";

/**
 * The `search` tool of the main agent, as a Chat Completions function tool. Each call runs a searcher
 * sub-agent (its own conversation through the same model API and session).
 */
export const searchTool = {
  type: "function",
  function: {
    name: "search",
    description:
      "Ask a searcher to look up one fact in the archive of the Veloran Isles. Returns a short answer.",
    parameters: {
      type: "object",
      properties: { query: { type: "string", description: "One short question or keyword query." } },
      required: ["query"],
      additionalProperties: false,
    },
  },
} as const;

/** The `search` tool's arguments. */
export const searchArgumentsSchema = z.object({ query: z.string().min(1) });
