import { renderQwen3Prompt } from "@relax-examples/kit/testing";
import { describe, expect, it } from "vitest";
import { minimalPolicy } from "../src/index";
import defaultPolicy, { policy } from "../src/policy";

describe("minimal stand-in policy", () => {
  it("should answer the last user query of a real Qwen3 prompt", async () => {
    expect(defaultPolicy).toBe(minimalPolicy);
    expect(policy).toBe(minimalPolicy);
    const { inputIds, promptText } = renderQwen3Prompt({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Why is the sky blue?\nExplain." },
      ],
    });
    expect(await minimalPolicy({ inputIds, promptText, sampling: {}, rid: "r" })).toEqual({
      text: "<think>\nOne short answer is enough.\n</think>\n\nStand-in answer to: Why is the sky blue?",
    });
    const closed = renderQwen3Prompt({
      messages: [{ role: "user", content: "hi" }],
      chatTemplateKwargs: { enable_thinking: false },
    });
    expect((await minimalPolicy({ ...closed, sampling: {}, rid: "r" })).text).toBe("Stand-in answer to: hi");
  });
});
