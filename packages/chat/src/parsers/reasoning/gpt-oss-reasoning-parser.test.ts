import { describe, expect, it } from "vitest";
import { gptOssReasoningParser } from "./gpt-oss-reasoning-parser";

describe("gpt-oss reasoning parser", () => {
  it("should read the analysis channel as reasoning and the final channel as content", () => {
    const text =
      "<|channel|>analysis<|message|>The user greets. 用户问候 👋<|end|><|start|>assistant<|channel|>final<|message|>Hello! 你好<|return|>";
    expect(gptOssReasoningParser.parse({ text, finishReason: "stop" })).toEqual({
      reasoning: "The user greets. 用户问候 👋",
      content: "Hello! 你好",
      truncated: false,
    });
  });

  it("should pass call messages on verbatim and keep commentary preambles as content", () => {
    const callMessage =
      '<|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"tz":"UTC"}<|call|>';
    const text = `<|channel|>analysis<|message|>Need time.<|end|><|start|>assistant<|channel|>commentary<|message|>Let me check.<|end|>${callMessage}`;
    expect(gptOssReasoningParser.parse({ text, finishReason: "stop" })).toEqual({
      reasoning: "Need time.",
      content: `Let me check.\n${callMessage}`,
      truncated: false,
    });
  });

  it("should join several analysis messages", () => {
    const text =
      "<|channel|>analysis<|message|>One.<|end|><|start|>assistant<|channel|>analysis<|message|>Two.<|end|>";
    expect(gptOssReasoningParser.parse({ text, finishReason: "stop" }).reasoning).toBe("One.\nTwo.");
  });

  it("should report reasoning cut off inside the analysis channel", () => {
    expect(
      gptOssReasoningParser.parse({
        text: "<|channel|>analysis<|message|>Thinking ab",
        finishReason: "length",
      }),
    ).toEqual({
      reasoning: "Thinking ab",
      content: "",
      truncated: true,
    });
  });

  it("should keep text without Harmony markup as content", () => {
    expect(gptOssReasoningParser.parse({ text: "plain", finishReason: "stop" })).toEqual({
      reasoning: undefined,
      content: "plain",
      truncated: false,
    });
  });

  it("should always force reasoning", () => {
    expect(gptOssReasoningParser.alwaysForcesReasoning).toBe(true);
    expect(gptOssReasoningParser.promptOpensReasoning("<|start|>assistant")).toBe(true);
  });
});
