import type { AssistantMessage, ChatMessage } from "@relax/chat";
import { canonicalizeMessages } from "@relax/chat";
import { describe, expect, it } from "vitest";
import { assistant, call, charForest, generate, state, system, tool, user } from "../../test/helpers";
import type { MatchPolicy } from "../session-forest-types";

const S = system("S");
const U = user("add 1 and x");
const T1 = tool("1x");
const R2 = assistant("It is 1x.");

/**
 * Runs turn 1 (generating `committed`), then turn 2 whose history carries `echoed` instead, and commits
 * R2. Returns what the checks need.
 */
function replay(committed: AssistantMessage, echoed: ChatMessage, policy: MatchPolicy) {
  const { forest, renderer } = charForest({ policy });
  const first = generate(forest, renderer, forest.beginTurn(state([S, U])), committed);
  const plan = forest.beginTurn(state([S, U, echoed, T1]));
  const last = generate(forest, renderer, plan, R2);
  const sample = forest.buildSample(last.node.stateHash);
  const r1 = renderer.renderResponse(committed);
  return { forest, renderer, first, plan, last, sample, r1 };
}

const R1 = assistant("Let me add.", {
  reasoning_content: "think hard",
  tool_calls: [call("add", '{"a":1,"b":"x"}')],
});

/** Checks the tolerant outcome: one context, committed tokens kept, the edits recorded. */
function expectTolerated(run: ReturnType<typeof replay>, edits: string[]) {
  const { forest, plan, first, sample, r1, renderer } = run;
  expect(plan).toMatchObject({
    transition: "drift",
    linear: true,
    toleratedEdits: edits,
    parentStateHash: first.node.stateHash,
  });
  expect(forest.node(plan.observationStateHash)!.parentStateHash).toBe(first.node.stateHash);
  // The response keeps exactly the generated tokens, with loss 1.
  expect(sample.tokens.slice(sample.promptLength, sample.promptLength + r1.length)).toEqual(r1);
  expect(sample.lossMask.slice(0, r1.length)).toEqual(r1.map(() => 1));
  expect(
    renderer
      .decode(plan.inputIds)
      .endsWith(`${renderer.decode(r1)}\n<|im_start|>tool\n1x<|im_end|>\n<|im_start|>assistant\n`),
  ).toBe(true);
  expect(sample.turns.map((turn) => turn.transition)).toEqual(["append", "drift"]);
  expect(sample.turns[1]!.toleratedEdits).toEqual(edits);
  expect(forest.implicitExportLeaf().stateHash).toBe(run.last.node.stateHash);
}

/** Checks the exact outcome: the edited copy forks, becoming observation (loss 0). */
function expectForked(run: ReturnType<typeof replay>, kinds: string[]) {
  const { forest, plan, sample, r1, first } = run;
  expect(plan).toMatchObject({ transition: "drift", linear: false, toleratedEdits: [] });
  expect(plan.edits.map((edit) => `${edit.kind}@${edit.path}`)).toEqual(kinds);
  expect(plan.parentStateHash).toBe(first.node.parentStateHash);
  expect(forest.node(plan.observationStateHash)!.parentStateHash).toBe(forest.rootStateHash);
  expect(sample.turnCount).toBe(1);
  expect(sample.lossMask.every((value, i) => value === (i >= sample.responseLength - 10 ? 1 : 0))).toBe(true);
  expect(forest.leaves()).toHaveLength(2);
  expect(r1.length).toBeGreaterThan(0);
  expect(() => forest.implicitExportLeaf()).toThrowError(
    "implicit export requires one committed leaf, found 2",
  );
}

describe("drift: dropped reasoning_content", () => {
  const echoed = assistant("Let me add.", { tool_calls: [call("add", '{"a":1,"b":"x"}')] });
  it("should be mapped onto the committed response under the tolerant policy", () => {
    expectTolerated(replay(R1, echoed, "tolerant"), ["reasoning_dropped@messages[2].reasoning_content"]);
  });
  it("should fork under the exact policy", () => {
    expectForked(replay(R1, echoed, "exact"), ["reasoning_dropped@messages[2].reasoning_content"]);
  });
});

describe("drift: re-serialised tool arguments", () => {
  it('should match a Python-style {"a": 1, "b": "x"} replay exactly once both are canonical', () => {
    const [replayed] = canonicalizeMessages([
      {
        role: "assistant",
        content: "Let me add.",
        reasoning_content: "think hard",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "add", arguments: '{"a": 1, "b": "x"}' } },
        ],
      },
    ]);
    for (const policy of ["tolerant", "exact"] as const) {
      const run = replay(R1, replayed!, policy);
      expect(run.plan).toMatchObject({ transition: "append", linear: true, toleratedEdits: [], edits: [] });
    }
  });

  it('should tolerate a JS-style {"b":"x","a":1} replay of Python-style committed arguments', () => {
    // An embedding that commits arguments as the model wrote them (not canonicalised).
    const committed = assistant("", { tool_calls: [call("add", '{"a": 1, "b": "x"}')] });
    const echoed = assistant("", { tool_calls: [call("add", '{"b":"x","a":1}')] });
    const edit = "tool_arguments_reserialized@messages[2].tool_calls[0].function.arguments";
    expectTolerated(replay(committed, echoed, "tolerant"), [edit]);
    expectForked(replay(committed, echoed, "exact"), [edit]);
  });
});

describe("drift: changed whitespace", () => {
  const echoed = { ...R1, content: "  Let me\n\nadd. " };
  it("should be tolerated", () => {
    expectTolerated(replay(R1, echoed, "tolerant"), ["whitespace_changed@messages[2].content"]);
  });
  it("should fork under the exact policy", () => {
    expectForked(replay(R1, echoed, "exact"), ["whitespace_changed@messages[2].content"]);
  });
});

describe("drift: redacted value", () => {
  it("should tolerate a secret replaced by *** in content", () => {
    const committed = assistant("Set sk_test = 123 now.");
    const echoed = assistant("Set sk_test = *** now.");
    expectTolerated(replay(committed, echoed, "tolerant"), ["value_redacted@messages[2].content"]);
    expectForked(replay(committed, echoed, "exact"), ["value_redacted@messages[2].content"]);
  });

  it("should tolerate a redacted string inside tool-call arguments", () => {
    const committed = assistant("", { tool_calls: [call("run", '{"code":"sk_test = 123","lang":"py"}')] });
    const echoed = assistant("", {
      tool_calls: [call("run", '{"code":"sk_test = [REDACTED]","lang":"py"}')],
    });
    expectTolerated(replay(committed, echoed, "tolerant"), [
      "value_redacted@messages[2].tool_calls[0].function.arguments.code",
    ]);
  });

  it("should not take a different value for a redaction", () => {
    const committed = assistant("Set sk_test = 123 now.");
    const run = replay(committed, assistant("Set sk_live = *** now."), "tolerant");
    expect(run.plan).toMatchObject({ transition: "drift", linear: false, toleratedEdits: [] });
    expect(run.plan.edits).toEqual([{ kind: "rewritten", path: "messages[2]" }]);
  });
});

describe("drift: content null vs empty string", () => {
  const committed = assistant("", { tool_calls: [call("add", '{"a":1}')] });
  it('should be absorbed by canonicalisation (null becomes "")', () => {
    const [echoed] = canonicalizeMessages([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "add", arguments: '{"a":1}' } }],
      },
    ]);
    const run = replay(committed, echoed!, "exact");
    expect(run.plan).toMatchObject({ transition: "append", edits: [] });
  });

  it("should be tolerated when a raw null reaches the forest", () => {
    const echoed = { ...committed, content: null } as unknown as ChatMessage;
    expectTolerated(replay(committed, echoed, "tolerant"), ["empty_content_replaced@messages[2].content"]);
  });
});

describe("drift: other benign edits", () => {
  it("should tolerate reasoning moved into content as <think>…</think>", () => {
    const echoed = assistant("<think>think hard</think>Let me add.", { tool_calls: R1.tool_calls });
    expectTolerated(replay(R1, echoed, "tolerant"), ["reasoning_inlined@messages[2].content"]);
  });

  it("should tolerate a re-identified tool call", () => {
    const echoed = { ...R1, tool_calls: [call("add", '{"a":1,"b":"x"}', "toolu_01")] };
    expectTolerated(replay(R1, echoed, "tolerant"), ["tool_call_id_changed@messages[2].tool_calls[0].id"]);
  });

  it("should record every edit of a message that has several", () => {
    const echoed = assistant(" Let me add. ", { tool_calls: [call("add", '{"b": "x", "a": 1}', "x9")] });
    expectTolerated(replay(R1, echoed, "tolerant"), [
      "whitespace_changed@messages[2].content",
      "reasoning_dropped@messages[2].reasoning_content",
      "tool_call_id_changed@messages[2].tool_calls[0].id",
      "tool_arguments_reserialized@messages[2].tool_calls[0].function.arguments",
    ]);
  });
});

describe("drift: real rewrites", () => {
  it("should fork a rewritten response under both policies, training it nowhere as a response", () => {
    for (const policy of ["tolerant", "exact"] as const) {
      const run = replay(R1, assistant("I will not add."), policy);
      expect(run.plan).toMatchObject({ transition: "drift", linear: false, toleratedEdits: [] });
      expect(run.plan.edits).toEqual([{ kind: "rewritten", path: "messages[2]" }]);
      const observation = run.forest.node(run.plan.observationStateHash)!;
      expect(observation.kind === "observation" && observation.messages.map((m) => m.role)).toEqual([
        "system",
        "user",
        "assistant",
        "tool",
      ]);
    }
  });

  it("should fork when a tool call is dropped or renamed", () => {
    const dropped = replay(R1, assistant("Let me add.", { reasoning_content: "think hard" }), "tolerant");
    expect(dropped.plan.edits).toEqual([{ kind: "rewritten", path: "messages[2]" }]);
    const renamed = replay(R1, { ...R1, tool_calls: [call("sub", '{"a":1,"b":"x"}')] }, "tolerant");
    expect(renamed.plan.edits).toEqual([{ kind: "rewritten", path: "messages[2]" }]);
  });
});

describe("drift: across several turns", () => {
  it("should keep one context when every earlier response is echoed without reasoning", () => {
    const { forest, renderer } = charForest();
    const withThought = (content: string) => assistant(content, { reasoning_content: `why ${content}` });
    const history: ChatMessage[] = [S, U];
    const committed: AssistantMessage[] = [];
    for (let turn = 0; turn < 4; turn++) {
      const echoed = committed.map((message) => assistant(message.content as string));
      const messages = [S, U, ...echoed.flatMap((message, i) => [message, user(`next ${i}`)])];
      const plan = forest.beginTurn(state(messages));
      expect(plan.transition).toBe(turn === 0 ? "append" : "drift");
      expect(plan.toleratedEdits).toEqual(
        committed.map((_, i) => `reasoning_dropped@messages[${2 + 2 * i}].reasoning_content`),
      );
      const message = withThought(`answer ${turn}`);
      generate(forest, renderer, plan, message);
      committed.push(message);
      history.push(message);
    }
    const leaf = forest.implicitExportLeaf();
    const sample = forest.buildSample(leaf.stateHash);
    expect(sample.turnCount).toBe(4);
    expect(renderer.decode(sample.tokens)).toContain("<think>why answer 0</think>answer 0<|im_end|>");
    expect(forest.conversationState(leaf.stateHash).messages[2]).toEqual(committed[0]);
  });
});
