import { formatQwen3Assistant, type StandinPolicy } from "@relax-examples/kit";

/**
 * The vision example's **stand-in policy** (a script, not a model: it sees no pixels): the first turn
 * calls `zoom` on the bottom half; once a tool response is in the prompt it answers "Save". The rows it
 * leads to therefore get reward 1 only for the screenshot whose highlighted button is Save.
 */
export const visionPolicy: StandinPolicy = (request) =>
  request.promptText.includes("<tool_response>")
    ? { text: formatQwen3Assistant({ content: "The highlighted button is Save." }) }
    : { text: formatQwen3Assistant({ toolCalls: [{ name: "zoom", arguments: { region: "bottom" } }] }) };
