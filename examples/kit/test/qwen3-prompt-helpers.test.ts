import { describe, expect, it } from "vitest";
import {
  formatPythonJson,
  formatQwen3Assistant,
  lastUserQueryIndex,
  parseQwen3Prompt,
  requestSeedKey,
  seededFraction,
  systemText,
  toolResponsesAfter,
} from "../src/index";
import { encodeQwen3, renderQwen3Prompt } from "../src/testing/index";

const tools = [
  {
    type: "function",
    function: {
      name: "calculator",
      description: "Evaluates an arithmetic expression.",
      parameters: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
      },
    },
  },
];
const toolCall = (id: string, expression: string) => ({
  id,
  type: "function",
  function: { name: "calculator", arguments: { expression } },
});

describe("Qwen3 stand-in helpers on the real chat template", () => {
  it("should format an assistant turn exactly as the template renders it", () => {
    const assistant = {
      role: "assistant",
      content: "",
      reasoning_content: "First 16-3-4.",
      tool_calls: [toolCall("c1", "16-3-4")],
    };
    const { rendered } = renderQwen3Prompt({
      messages: [
        { role: "user", content: "Eggs?" },
        assistant,
        { role: "tool", tool_call_id: "c1", content: "9" },
      ],
      tools,
    });
    const text = formatQwen3Assistant({
      reasoning: "First 16-3-4.",
      toolCalls: [{ name: "calculator", arguments: { expression: "16-3-4" } }],
    });
    expect(text).toBe(
      '<think>\nFirst 16-3-4.\n</think>\n\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "16-3-4"}}\n</tool_call>',
    );
    expect(rendered).toContain(`<|im_start|>assistant\n${text}<|im_end|>\n`);
    expect(encodeQwen3(text).slice(0, 1)).toEqual([151667]);
    expect(encodeQwen3(text)).toContain(151657);
  });

  it("should put a newline between content and tool calls, and between tool calls", () => {
    const text = formatQwen3Assistant({
      content: "Two steps.",
      toolCalls: [
        { name: "calculator", arguments: { expression: "1+1" } },
        { name: "calculator", arguments: { expression: "2*3" } },
      ],
    });
    const { rendered } = renderQwen3Prompt({
      messages: [
        { role: "user", content: "q" },
        {
          role: "assistant",
          content: "Two steps.",
          tool_calls: [toolCall("a", "1+1"), toolCall("b", "2*3")],
        },
        { role: "tool", tool_call_id: "a", content: "2" },
        { role: "tool", tool_call_id: "b", content: "6" },
      ],
    });
    expect(rendered).toContain(`<|im_start|>assistant\n${text}<|im_end|>`);
  });

  it("should split a decoded prompt into turns and find the query and tool results", () => {
    const { promptText } = renderQwen3Prompt({
      messages: [
        { role: "system", content: "You are careful." },
        { role: "user", content: "Old question" },
        { role: "assistant", content: "Old answer" },
        { role: "user", content: "Eggs?" },
        {
          role: "assistant",
          content: "",
          reasoning_content: "r",
          tool_calls: [toolCall("a", "1+1"), toolCall("b", "2*3")],
        },
        { role: "tool", tool_call_id: "a", content: "2" },
        { role: "tool", tool_call_id: "b", content: "6" },
      ],
      tools,
    });
    const prompt = parseQwen3Prompt(promptText);
    expect(prompt.turns.map((turn) => turn.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(prompt.generationPrompt).toBe("");
    expect(systemText(prompt).startsWith("You are careful.\n\n# Tools")).toBe(true);
    const query = lastUserQueryIndex(prompt);
    expect(query).toBe(3);
    expect(prompt.turns[query]!.content).toBe("Eggs?");
    expect(toolResponsesAfter(prompt, query)).toEqual(["2", "6"]);
    expect(toolResponsesAfter(prompt, 4)).toEqual(["2", "6"]);
  });

  it("should see the empty think block of enable_thinking=false as the generation prompt", () => {
    const { promptText } = renderQwen3Prompt({
      messages: [{ role: "user", content: "hi" }],
      chatTemplateKwargs: { enable_thinking: false },
    });
    expect(parseQwen3Prompt(promptText).generationPrompt).toBe("<think>\n\n</think>\n\n");
  });
});

describe("formatPythonJson", () => {
  it("should use json.dumps separators and keep non-ASCII", () => {
    expect(formatPythonJson({ a: [1, "上海"], b: { c: null, d: true } })).toBe(
      '{"a": [1, "上海"], "b": {"c": null, "d": true}}',
    );
  });
});

describe("seededFraction", () => {
  it("should be the first 48 bits of the key's SHA-256", () => {
    expect(seededFraction("abc")).toBe(0.7283949105903993);
    expect(seededFraction(requestSeedKey({ rid: "rid-1" }, "step-0"))).toBe(0.34151964736409113);
  });

  it("should key on the sampling seed when there is one (reproducible runs), else on the rid", () => {
    expect(requestSeedKey({ rid: "r", sampling: { sampling_seed: 7 } }, "x")).toBe("seed:7|x");
    expect(requestSeedKey({ rid: "other", sampling: { seed: 7 } }, "x")).toBe("seed:7|x");
    expect(requestSeedKey({ rid: "r", sampling: {} }, "x")).toBe("r||x");
    expect(requestSeedKey({ rid: "r" }, "x")).toBe("r||x");
  });
});
