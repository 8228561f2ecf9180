import { describe, expect, it } from "vitest";
import { getReasoningParser } from "../parser-registry";
import {
  deepseekR1ReasoningParser,
  kimiK2ReasoningParser,
  kimiReasoningParser,
  mistralReasoningParser,
  qwen3ReasoningParser,
} from "./think-tag-reasoning-parser";

const stop = "stop" as const;

describe("think-tag reasoning parsers", () => {
  describe.each([
    { parser: qwen3ReasoningParser, open: "<think>", close: "</think>" },
    { parser: getReasoningParser("glm45"), open: "<think>", close: "</think>" },
    { parser: getReasoningParser("deepseek-v3"), open: "<think>", close: "</think>" },
    { parser: kimiK2ReasoningParser, open: "<think>", close: "</think>" },
    { parser: kimiReasoningParser, open: "◁think▷", close: "◁/think▷" },
    { parser: mistralReasoningParser, open: "[THINK]", close: "[/THINK]" },
  ])("$parser.name", ({ parser, open, close }) => {
    it("should split a closed section from the answer", () => {
      expect(
        parser.parse({ text: `${open}\nStep 1. 先想一想 🤔\n${close}\n\nThe answer.`, finishReason: stop }),
      ).toEqual({
        reasoning: "Step 1. 先想一想 🤔",
        content: "The answer.",
        truncated: false,
      });
    });

    it("should treat text without markers as content", () => {
      expect(parser.parse({ text: "Just an answer.\n", finishReason: stop })).toEqual({
        reasoning: undefined,
        content: "Just an answer.",
        truncated: false,
      });
    });

    it("should read an open section that never closes as reasoning, truncated when cut off", () => {
      expect(parser.parse({ text: `${open}Still thinking`, finishReason: "length" })).toEqual({
        reasoning: "Still thinking",
        content: "",
        truncated: true,
      });
      expect(parser.parse({ text: `${open}Still thinking`, finishReason: stop }).truncated).toBe(false);
    });

    it("should start inside the section when forced (the prompt opened it)", () => {
      expect(
        parser.parse({ text: `reasoning${close}answer`, forceReasoning: true, finishReason: stop }),
      ).toEqual({
        reasoning: "reasoning",
        content: "answer",
        truncated: false,
      });
      expect(parser.parse({ text: "reasoning, cut", forceReasoning: true, finishReason: "length" })).toEqual({
        reasoning: "reasoning, cut",
        content: "",
        truncated: true,
      });
    });

    it("should read a closing marker without an opening one as an implied open section", () => {
      expect(parser.parse({ text: `reasoning${close}answer`, finishReason: stop })).toEqual({
        reasoning: "reasoning",
        content: "answer",
        truncated: false,
      });
    });

    it("should give an empty reasoning for an empty section", () => {
      expect(parser.parse({ text: `${open}\n\n${close}\n\nHi`, finishReason: stop })).toEqual({
        reasoning: "",
        content: "Hi",
        truncated: false,
      });
    });

    it("should tell whether a prompt leaves the section open", () => {
      expect(parser.promptOpensReasoning(`<|im_start|>assistant\n${open}\n`)).toBe(true);
      expect(parser.promptOpensReasoning(`<|im_start|>assistant\n${open}\n\n${close}\n\n`)).toBe(false);
      expect(parser.promptOpensReasoning("<|im_start|>assistant\n")).toBe(false);
    });
  });

  it("should let <tool_call> close an unclosed qwen3 section and keep the marker in the content", () => {
    expect(
      qwen3ReasoningParser.parse({
        text: '<think>I need the weather.\n<tool_call>\n{"name": "f"}\n</tool_call>',
        finishReason: stop,
      }),
    ).toEqual({
      reasoning: "I need the weather.",
      content: '<tool_call>\n{"name": "f"}\n</tool_call>',
      truncated: false,
    });
  });

  it("should keep a <tool_call> before </think> inside the reasoning", () => {
    expect(
      qwen3ReasoningParser.parse({ text: "<think>a <tool_call> b</think>c", finishReason: stop }),
    ).toEqual({
      reasoning: "a <tool_call> b",
      content: "c",
      truncated: false,
    });
  });

  it("should let the tool-call section close an unclosed kimi_k2 section", () => {
    expect(
      kimiK2ReasoningParser.parse({
        text: "<think>plan<|tool_calls_section_begin|>x",
        finishReason: "length",
      }),
    ).toEqual({ reasoning: "plan", content: "<|tool_calls_section_begin|>x", truncated: false });
  });

  it("should always force reasoning for deepseek-r1 and qwen3-thinking", () => {
    for (const parser of [deepseekR1ReasoningParser, getReasoningParser("qwen3-thinking")]) {
      expect(parser.alwaysForcesReasoning).toBe(true);
      expect(
        parser.parse({ text: "thought</think>answer", forceReasoning: false, finishReason: stop }),
      ).toEqual({
        reasoning: "thought",
        content: "answer",
        truncated: false,
      });
      expect(parser.parse({ text: "no end", finishReason: "length" })).toEqual({
        reasoning: "no end",
        content: "",
        truncated: true,
      });
    }
  });

  it("should strip repeated leading <think> markers", () => {
    expect(
      deepseekR1ReasoningParser.parse({ text: "\n<think><think>\nx</think>y", finishReason: stop }),
    ).toEqual({
      reasoning: "x",
      content: "y",
      truncated: false,
    });
  });
});
