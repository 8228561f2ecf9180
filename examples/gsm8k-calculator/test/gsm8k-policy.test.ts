import { encodeQwen3, renderQwen3Prompt } from "@relax-examples/kit/testing";
import { describe, expect, it } from "vitest";
import {
  buildGsm8kPrompt,
  calculatorTool,
  createGsm8kPolicy,
  gsm8kPolicy,
  parseGsm8kSolution,
  readGsm8kRows,
  scoreGsm8kAnswer,
} from "../src/index";
import defaultPolicy, { policy as namedPolicy } from "../src/policy";
import { playEpisode } from "./play-episode";

const rows = readGsm8kRows();
const janet = rows[0]!;
const exact = createGsm8kPolicy({ errorRate: 0 });
const toolCallText = (reasoning: string, expression: string) =>
  `<think>\n${reasoning}\n</think>\n\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "${expression}"}}\n</tool_call>`;

function promptFor(messages: unknown[], chatTemplateKwargs: Record<string, unknown> = {}) {
  const { inputIds, promptText } = renderQwen3Prompt({
    messages,
    tools: [calculatorTool],
    chatTemplateKwargs,
  });
  return { inputIds, promptText, sampling: {}, rid: "sess-0-turn-1" };
}
const user = { role: "user", content: buildGsm8kPrompt(janet.question) };
const assistantCall = (id: string, expression: string) => ({
  role: "assistant",
  content: "",
  reasoning_content: "r",
  tool_calls: [
    { id, type: "function", function: { name: "calculator", arguments: JSON.stringify({ expression }) } },
  ],
});

describe("GSM8K stand-in policy on real Qwen3 prompts", () => {
  it("should export the policy as default and as `policy`", () => {
    expect(defaultPolicy).toBe(gsm8kPolicy);
    expect(namedPolicy).toBe(gsm8kPolicy);
  });

  it("should emit the first reference step as a Qwen3 tool call", async () => {
    const request = promptFor([user]);
    expect(request.inputIds.slice(-3)).toEqual([151644, 77091, 198]);
    const { text } = await exact(request);
    expect(text).toBe(toolCallText("Step 1 of 2: I need 16-3-4. I will use the calculator.", "16-3-4"));
    const ids = encodeQwen3(text);
    expect(ids[0]).toBe(151667);
    expect(ids.filter((id) => id === 151657 || id === 151658 || id === 151668)).toEqual([
      151668, 151657, 151658,
    ]);
  });

  it("should count the tool responses and emit the next step, then the final answer", async () => {
    const afterOne = [
      user,
      assistantCall("c1", "16-3-4"),
      { role: "tool", tool_call_id: "c1", content: "9" },
    ];
    expect((await exact(promptFor(afterOne))).text).toBe(
      toolCallText("Step 2 of 2: I need 9*2. I will use the calculator.", "9*2"),
    );
    const afterTwo = [
      ...afterOne,
      assistantCall("c2", "9*2"),
      { role: "tool", tool_call_id: "c2", content: "18" },
    ];
    expect((await exact(promptFor(afterTwo))).text).toBe(
      "<think>\nThe calculator results give 18.\n</think>\n\nThe answer is 18.\n#### 18",
    );
  });

  it("should carry a wrong calculator result into later steps and the final answer", async () => {
    const afterOne = [
      user,
      assistantCall("c1", "17-3-4"),
      { role: "tool", tool_call_id: "c1", content: "10" },
    ];
    expect((await exact(promptFor(afterOne))).text).toBe(
      toolCallText("Step 2 of 2: I need 10*2. I will use the calculator.", "10*2"),
    );
    const afterTwo = [
      ...afterOne,
      assistantCall("c2", "10*2"),
      { role: "tool", tool_call_id: "c2", content: "20" },
    ];
    expect((await exact(promptFor(afterTwo))).text).toContain("#### 20");
  });

  it("should slip on a seeded step: sess-6 gets 17-3-4 where sess-0 gets 16-3-4", async () => {
    const request = promptFor([user]);
    expect((await gsm8kPolicy({ ...request, rid: "sess-0-turn-1" })).text).toContain(
      '"expression": "16-3-4"',
    );
    expect((await gsm8kPolicy({ ...request, rid: "sess-6-turn-1" })).text).toContain(
      '"expression": "17-3-4"',
    );
    expect(
      (await gsm8kPolicy({ ...request, rid: "sess-6-turn-1", sampling: { sampling_seed: 5 } })).text,
    ).toContain('"expression": "16-3-4"');
  });

  it("should not open a think block when the prompt already closed it (enable_thinking=false)", async () => {
    const { text } = await exact(promptFor([user], { enable_thinking: false }));
    expect(text).toBe(
      '<tool_call>\n{"name": "calculator", "arguments": {"expression": "16-3-4"}}\n</tool_call>',
    );
  });

  it("should answer #### 0 to a problem it does not know", async () => {
    const { text } = await exact(
      promptFor([{ role: "user", content: "What is the airspeed of a swallow?" }]),
    );
    expect(text).toBe(
      "<think>\nI do not recognise this problem.\n</think>\n\nI cannot solve this problem.\n#### 0",
    );
  });

  it("should solve every bundled problem with errorRate 0 through the real template and calculator", async () => {
    let turns = 0;
    for (const [index, row] of rows.entries()) {
      const episode = await playEpisode({
        policy: exact,
        question: row.question,
        sessionId: `exact-${index}`,
      });
      expect({ index, predicted: episode.predicted }).toEqual({
        index,
        predicted: parseGsm8kSolution(row.answer).finalAnswer,
      });
      turns += episode.turns.length;
    }
    expect(turns).toBe(950 + 300);
  });

  it("should vary rewards within Groups of 4 with the default 30 % slip rate", async () => {
    const groups: number[][] = [];
    for (const [index, row] of rows.slice(0, 40).entries()) {
      const rewards: number[] = [];
      for (let sample = 0; sample < 4; sample++) {
        const episode = await playEpisode({
          policy: gsm8kPolicy,
          question: row.question,
          sessionId: `g${index}-s${sample}`,
        });
        rewards.push(
          scoreGsm8kAnswer({
            predicted: episode.predicted,
            answer: parseGsm8kSolution(row.answer).finalAnswer,
          }),
        );
      }
      groups.push(rewards);
    }
    const failures = groups.flat().filter((reward) => reward === 0).length;
    const mixed = groups.filter((rewards) => new Set(rewards).size > 1).length;
    // 160 sessions: about 30 % fail, and most Groups have mixed rewards (a GRPO signal).
    expect({ failures, mixed }).toEqual({ failures: 43, mixed: 28 });
  });
});
