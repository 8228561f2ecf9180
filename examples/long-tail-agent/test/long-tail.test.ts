import { describe, expect, it } from "vitest";
import { createLongTailPolicy } from "../src/create-long-tail-policy";
import { drawLongTail } from "../src/draw-long-tail";
import { longTailKey, longTailParamsFromEnv } from "../src/run-long-tail-agent";
import { runLongTailSession } from "../src/run-long-tail-session";

describe("long-tail agent", () => {
  it("should draw the same plan for the same key, and a heavy tail over many keys", () => {
    expect(drawLongTail("42|p0|0")).toEqual(drawLongTail("42|p0|0"));
    const plans = Array.from({ length: 400 }, (_, i) => drawLongTail(`7|p${i}|0`));
    const turns = plans.map((plan) => plan.turns).sort((a, b) => a - b);
    expect(turns[0]).toBe(1);
    expect(turns[200]).toBe(3);
    expect(turns[399]).toBe(12);
    expect(plans.every((plan) => plan.toolLatenciesMs.length === plan.turns - 1)).toBe(true);
    const latencies = plans.flatMap((plan) => plan.toolLatenciesMs).sort((a, b) => a - b);
    // Lognormal: the slowest tool call is many times the median one.
    expect(latencies.at(-1)! / latencies[Math.floor(latencies.length / 2)]!).toBeGreaterThan(10);
  });

  it("should run the drawn turns with a tool observation between them, and seed by prompt and slot", async () => {
    // The sample position comes from the session folder's name (the credential carries none).
    const key = longTailKey({
      seed: "0",
      input: { metadata: { id: "q" } },
      sessionIoDir: "/tmp/relax-sessions-7-0a1b2c3d/g0-0-abc.s1-Xy9Qz0",
      sessionId: "4a842d2ffe94bad3a474c26cd71bea5a",
    });
    expect(key).toBe("0|q|s1");
    expect(longTailKey({ seed: "0", input: { metadata: { id: "q" } }, sessionId: "4a84" })).toBe("0|q|4a84");
    const plan = drawLongTail("0|q|s1", { turnMedian: 4 });
    const slept: number[] = [];
    const result = await runLongTailSession({
      messages: [{ role: "user", content: "go" }],
      key,
      params: longTailParamsFromEnv({ LONG_TAIL_TURN_MEDIAN: "4", LONG_TAIL_TOOL_SIGMA: "" }),
      complete: async (messages) => ({ role: "assistant", content: `reply ${messages.length}` }),
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    expect(result.turns).toBe(plan.turns);
    expect(slept).toEqual(plan.toolLatenciesMs);
    expect(result.messages).toHaveLength(1 + plan.turns * 2 - 1);
    expect(result.messages.at(-1)).toEqual({ role: "assistant", content: `reply ${plan.turns * 2 - 1}` });
    expect(result.reward).toBe(plan.turns <= 4 ? 1 : 0);
  });

  it("should continue a partial reply with exactly its remaining ids", () => {
    // A toy tokenizer: one id per character.
    const tokenizer = { encode: (text: string) => Array.from(text, (char) => char.charCodeAt(0)) };
    const policy = createLongTailPolicy();
    const prompt = tokenizer.encode("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n");
    const whole = policy({ inputIds: prompt, tokenizer }).tokenIds;
    const rest = policy({ inputIds: [...prompt, ...whole.slice(0, 5)], tokenizer }).tokenIds;
    expect([...whole.slice(0, 5), ...rest]).toEqual(whole);
  });
});
