import { describe, expect, it } from "vitest";
import {
  getReasoningParser,
  getToolCallParser,
  reasoningParserNames,
  toolCallParserNames,
} from "./parser-registry";
import { UnknownParserError } from "./unknown-parser-error";

describe("parser registry", () => {
  it("should list SGLang's parser names", () => {
    expect(toolCallParserNames).toEqual([
      "qwen25",
      "qwen",
      "hermes",
      "qwen3_coder",
      "step3p5",
      "deepseekv3",
      "deepseekv31",
      "kimi_k2",
      "glm45",
      "glm",
      "glm47",
      "llama3",
      "mistral",
      "pythonic",
      "gpt-oss",
    ]);
    expect(reasoningParserNames).toEqual([
      "qwen3",
      "qwen3-thinking",
      "deepseek-r1",
      "deepseek-v3",
      "glm45",
      "kimi",
      "kimi_k2",
      "gpt-oss",
      "mistral",
    ]);
  });

  it("should resolve aliases to the parser they stand for", () => {
    expect(getToolCallParser("qwen").name).toBe("qwen25");
    expect(getToolCallParser("glm").name).toBe("glm45");
    expect(getToolCallParser("step3p5").name).toBe("qwen3_coder");
    for (const name of toolCallParserNames) expect(typeof getToolCallParser(name).parse).toBe("function");
    for (const name of reasoningParserNames) expect(getReasoningParser(name).name).toBe(name);
  });

  it("should throw a typed error listing the valid names", () => {
    expect(() => getReasoningParser("deepseek_r1")).toThrowError(
      'unknown reasoning parser "deepseek_r1"; valid names: qwen3, qwen3-thinking, deepseek-r1, deepseek-v3, glm45, kimi, kimi_k2, gpt-oss, mistral',
    );
    try {
      getToolCallParser("toString");
      expect.unreachable();
    } catch (error) {
      expect(UnknownParserError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        parserKind: "tool_call",
        parserName: "toString",
        validNames: toolCallParserNames,
      });
    }
  });
});
