import { describe, expect, it } from "vitest";
import { scriptedPolicy } from "../src/index";
import { lastMessageText } from "../src/policies/echo-policy";
import { echoPolicy, type StandinPolicyRequest } from "../src/testing/index";
import { chatPrompt, qwen3Tokenizer } from "./support/qwen3-tokenizer";

const tokenizer = await qwen3Tokenizer();

function request(text: string, rid = "r"): StandinPolicyRequest {
  const inputIds = tokenizer.encode(text);
  return {
    rid,
    inputIds,
    promptText: text,
    sampling: {},
    tokenizer,
    requestIndex: 0,
    headers: {},
    signal: new AbortController().signal,
  };
}

describe("scriptedPolicy", () => {
  it("should serve replies in order and fail when exhausted", () => {
    const policy = scriptedPolicy(["a", { text: "b" }]);
    expect(policy(request("x"))).toBe("a");
    expect(policy.remaining()).toBe(1);
    expect(policy(request("x"))).toEqual({ text: "b" });
    expect(() => policy(request("x", "rid-3"))).toThrow(
      "scriptedPolicy: no scripted reply left for request rid-3",
    );
    policy.push({ tokenIds: [1, 2] });
    expect(policy(request("x"))).toEqual({ tokenIds: [1, 2] });
  });

  it("should repeat the last reply or cycle when asked", () => {
    const repeat = scriptedPolicy(["a", "b"], { whenExhausted: "repeat-last" });
    expect([1, 2, 3, 4].map(() => repeat(request("x")))).toEqual(["a", "b", "b", "b"]);
    const cycle = scriptedPolicy(["a", "b"], { whenExhausted: "cycle" });
    expect([1, 2, 3, 4, 5].map(() => cycle(request("x")))).toEqual(["a", "b", "a", "b", "a"]);
  });
});

describe("echoPolicy", () => {
  it("should echo the last user message of a ChatML prompt", async () => {
    const policy = echoPolicy({ prefix: "You said: " });
    expect(await policy(request(chatPrompt("What is 2+2?", "Be brief.")))).toBe("You said: What is 2+2?");
  });

  it("should handle a Llama-3 style header layout and a prompt without specials", () => {
    const specials = new Set([1, 2, 3]);
    // <|start_header_id|>=1 user <|end_header_id|>=2 \n\nHello <|eot_id|>=3 <|start_header_id|> assistant <|end_header_id|>
    const ids = [1, 10, 2, 11, 3, 1, 12, 2];
    const names: Record<number, string> = { 10: "user", 11: "\n\nHello there", 12: "assistant" };
    const decode = (pieces: number[]) => pieces.map((id) => names[id] ?? "").join("");
    expect(lastMessageText(ids, specials, decode)).toBe("Hello there");
    expect(lastMessageText([10, 11], specials, decode)).toBe("Hello there");
  });
});
