import { canonicalizeMessages } from "@relax/chat";
import { describe, expect, it } from "vitest";
import {
  assistant,
  call,
  charForest,
  fakeLogprob,
  generate,
  state,
  system,
  tool,
  user,
} from "../test/helpers";
import { ExportMatchError } from "./errors/export-match-error";
import { ForestInputError } from "./errors/forest-input-error";
import { NoResponseError } from "./errors/no-response-error";
import { SessionContextLengthError } from "./errors/session-context-length-error";
import { StateConflictError } from "./errors/state-conflict-error";
import { UnknownStateError } from "./errors/unknown-state-error";
import { ROOT_STATE_HASH } from "./state/state-hash";
import { CHAR_IM_END, CHAR_IM_START } from "./testing/char-renderer";

const S = system("S");
const U = user("u");
const R1 = assistant("", { tool_calls: [call("add", '{"a":1,"b":2}')] });
const T1 = tool("3");
const T2 = tool("4");
const R2 = assistant("done");

const PROMPT = "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nu<|im_end|>\n<|im_start|>assistant\n";
const R1_TEXT = '<tool_call>add {"a":1,"b":2}</tool_call><|im_end|>';
const OBS_TEXT = "\n<|im_start|>tool\n3<|im_end|>\n<|im_start|>assistant\n";
const R2_TEXT = "done<|im_end|>";

describe("SessionForest: a two-turn tool conversation (character tokenizer)", () => {
  function run() {
    const { forest, renderer } = charForest();
    const plan1 = forest.beginTurn(state([S, U]), { requestId: "req-1" });
    const c1 = generate(forest, renderer, plan1, R1, { weightVersion: "v1" });
    const plan2 = forest.beginTurn(state([S, U, R1, T1]), { requestId: "req-2" });
    const c2 = generate(forest, renderer, plan2, R2, { weightVersion: "v2" });
    return { forest, renderer, plan1, plan2, c1, c2 };
  }

  it("should render the first prompt with the whole template and send it as input_ids", () => {
    const { renderer, plan1 } = run();
    expect(renderer.decode(plan1.inputIds)).toBe(PROMPT);
    expect(plan1.inputIds.slice(0, 3)).toEqual([CHAR_IM_START, 0x73, 0x79]); // <|im_start|> "s" "y"
    expect(plan1).toMatchObject({
      turnId: 0,
      requestId: "req-1",
      parentStateHash: ROOT_STATE_HASH,
      transition: "append",
      linear: true,
      observationCreated: true,
      matchedMessages: 0,
      requestMessages: 2,
      promptTokens: 31,
      toleratedEdits: [],
    });
  });

  it("should match the committed response and send only the observation delta after it", () => {
    const { renderer, plan2, c1 } = run();
    expect(plan2.parentStateHash).toBe(c1.node.stateHash);
    expect(plan2.matchedMessages).toBe(3);
    expect(plan2.transition).toBe("append");
    expect(renderer.decode(plan2.inputIds)).toBe(PROMPT + R1_TEXT + OBS_TEXT);
    // The typed copy the gateway sends holds the same ids.
    expect(plan2.inputIdArray).toBeInstanceOf(Int32Array);
    expect(Array.from(plan2.inputIdArray)).toEqual(plan2.inputIds);
    expect(plan2.inputIdArray.length).toBe(plan2.promptTokens);
    expect(plan2.observationTokens).toBe(
      renderer.encode(OBS_TEXT.replace(/<\|im_(start|end)\|>/g, "#")).length,
    );
  });

  it("should build the sample with loss 1 exactly on generated tokens and aligned logprobs", () => {
    const { forest, renderer, c1, c2 } = run();
    const sample = forest.buildSample(c2.node.stateHash);
    const r1 = renderer.renderResponse(R1);
    const obs = renderer.renderObservationDelta({
      messages: [T1],
      tools: [],
      chatTemplateKwargs: {},
      previousResponseIds: r1,
    });
    const r2 = renderer.renderResponse(R2);
    expect(renderer.decode(sample.tokens)).toBe(PROMPT + R1_TEXT + OBS_TEXT + R2_TEXT);
    expect(sample.promptLength).toBe(forest.node(c1.node.parentStateHash!)!.tokens.length);
    expect(sample.responseLength).toBe(r1.length + obs.length + r2.length);
    expect(sample.lossMask).toEqual([...r1.map(() => 1), ...obs.map(() => 0), ...r2.map(() => 1)]);
    expect(sample.rolloutLogProbs).toEqual([
      ...r1.map((_, i) => fakeLogprob(0, i)),
      ...obs.map(() => 0),
      ...r2.map((_, i) => fakeLogprob(1, i)),
    ]);
    expect(sample.tokens[sample.promptLength + r1.length - 1]).toBe(CHAR_IM_END);
    expect(sample).toMatchObject({
      sessionId: "s1",
      rolloutId: "s1",
      stateHash: c2.node.stateHash,
      status: "completed",
      turnCount: 2,
      weightVersions: ["v1", "v2"],
      weightVersionSpans: [
        { version: "v1", start: 0, end: r1.length },
        { version: "v2", start: r1.length + obs.length, end: r1.length + obs.length + r2.length },
      ],
    });
    expect(
      sample.turns.map((t) => [
        t.turnIndex,
        t.transition,
        t.finishReason,
        t.responseSpan,
        t.observationTokens,
        t.requestId,
      ]),
    ).toEqual([
      [0, "append", "stop", [0, r1.length], 0, "req-1"],
      [
        1,
        "append",
        "stop",
        [r1.length + obs.length, r1.length + obs.length + r2.length],
        obs.length,
        "req-2",
      ],
    ]);
    expect(sample.turns[1]!.parentStateHash).toBe(c1.node.stateHash);
  });

  it("should equal a full render of the committed state (prefix-stable template)", () => {
    const { forest, renderer, c2 } = run();
    const committed = forest.conversationState(c2.node.stateHash);
    expect(committed.messages).toEqual([S, U, R1, T1, R2]);
    expect(forest.buildSample(c2.node.stateHash).tokens).toEqual(
      renderer.renderState(committed, { addGenerationPrompt: false }),
    );
  });

  it("should export the single leaf implicitly and by explicit record", () => {
    const { forest, c2, plan2 } = run();
    expect(forest.implicitExportLeaf().stateHash).toBe(c2.node.stateHash);
    expect(forest.matchExportState(state([S, U, R1, T1, R2])).stateHash).toBe(c2.node.stateHash);
    // An observation after a response is exportable too (status truncated).
    const observation = forest.matchExportState(state([S, U, R1, T1]));
    expect(observation.stateHash).toBe(plan2.observationStateHash);
    expect(forest.buildSample(observation.stateHash).status).toBe("truncated");
  });

  it("should keep the same state hash whatever the JSON key order of the request", () => {
    const { forest, c2 } = run();
    const shuffled = canonicalizeMessages([
      { content: "S", role: "system" },
      { content: "u", role: "user" },
      {
        tool_calls: [
          { function: { arguments: '{"b": 2, "a": 1}', name: "add" }, type: "function", id: "call_1" },
        ],
        content: null,
        role: "assistant",
      },
      { tool_call_id: "call_1", content: "3", role: "tool" },
      { content: "done", role: "assistant" },
    ]);
    expect(forest.matchExportState(state(shuffled))).toMatchObject({
      stateHash: c2.node.stateHash,
      toleratedEdits: [],
    });
  });

  it("should report storage and transition counts", () => {
    const { forest } = run();
    const stats = forest.stats();
    expect(stats).toMatchObject({
      nodes: 5,
      observations: 2,
      responses: 2,
      leaves: 1,
      exportableLeaves: 1,
      subtrees: 1,
      turns: 2,
      pendingTurns: 0,
      transitions: { append: 2, branch: 0, drift: 0, reset: 0 },
    });
    // [ids, ids above 65,535 (the special tokens)] of the root, observation, response, observation, response.
    const wide = (ids: Int32Array) => ids.filter((id) => id > 65_535).length;
    expect(forest.nodes().map((node) => [node.tokens.length, wide(node.tokens)])).toEqual([
      [0, 0],
      [31, 5],
      [41, 1],
      [21, 3],
      [5, 1],
    ]);
    // Only the first response is packed (2 bytes an id + 8 a wide one: 82 + 8 = 90, saving 74 ≥ 64); the
    // others stay at 4 bytes an id (124, 84, 20). Logprobs: 4 bytes each (float32 values), 46 of them.
    expect(stats.responseTokens).toBe(46);
    expect(stats.tokenBytes).toBe(124 + 90 + 84 + 20 + 4 * 46);
  });
});

describe("SessionForest: commits", () => {
  it("should make an identical re-commit idempotent", () => {
    const { forest, renderer } = charForest();
    const plan = forest.beginTurn(state([S, U]));
    const first = generate(forest, renderer, plan, R2);
    const again = generate(forest, renderer, plan, R2);
    expect(first.created).toBe(true);
    expect(again).toMatchObject({ created: false, transition: "append" });
    expect(again.node).toBe(first.node);
    expect(forest.stats().nodes).toBe(3);
  });

  it("should refuse to commit a second, different response for one plan", () => {
    const { forest, renderer } = charForest();
    const plan = forest.beginTurn(state([S, U]));
    generate(forest, renderer, plan, R2);
    expect(() => generate(forest, renderer, plan, assistant("other"))).toThrowError(
      /^plan: turn 0 already committed response [0-9a-f]{64}$/,
    );
  });

  it("should make two generations from one state sibling branches", () => {
    const { forest, renderer } = charForest();
    const a = forest.beginTurn(state([S, U]));
    const b = forest.beginTurn(state([S, U]));
    expect(b).toMatchObject({
      observationStateHash: a.observationStateHash,
      observationCreated: false,
      transition: "append",
    });
    const ra = generate(forest, renderer, a, assistant("A"));
    const rb = generate(forest, renderer, b, assistant("B"));
    expect(ra.transition).toBe("append");
    expect(rb.transition).toBe("branch");
    expect(forest.node(a.observationStateHash)!.children).toEqual([ra.node.stateHash, rb.node.stateHash]);
    expect(forest.leaves().map((leaf) => leaf.stateHash)).toEqual([ra.node.stateHash, rb.node.stateHash]);
    const samples = [forest.buildSample(ra.node.stateHash), forest.buildSample(rb.node.stateHash)];
    expect(samples.map((sample) => sample.rolloutId)).toEqual(["s1", "s1"]);
    expect(() => forest.implicitExportLeaf()).toThrowError(
      "implicit export requires one committed leaf, found 2",
    );
  });

  it("should classify re-sending an answered state as a branch", () => {
    const { forest, renderer } = charForest();
    generate(forest, renderer, forest.beginTurn(state([S, U])), R2);
    const again = forest.beginTurn(state([S, U]));
    expect(again).toMatchObject({ transition: "branch", linear: false, observationCreated: false });
  });

  it("should record the finish reason as status and keep a length-cut response unclosed", () => {
    const { forest, renderer } = charForest();
    const plan = forest.beginTurn(state([S, U]));
    const cut = generate(forest, renderer, plan, assistant("don"), { finishReason: "length", cut: 3 });
    expect(forest.buildSample(cut.node.stateHash).status).toBe("truncated");
    const next = forest.beginTurn(state([S, U, assistant("don"), user("go on")]));
    // The model did not generate <|im_end|>, so the delta closes the turn itself.
    expect(renderer.decode(next.inputIds).slice(PROMPT.length)).toBe(
      "don<|im_end|>\n<|im_start|>user\ngo on<|im_end|>\n<|im_start|>assistant\n",
    );
    const aborted = generate(forest, renderer, next, assistant("x"), { finishReason: "abort" });
    expect(forest.buildSample(aborted.node.stateHash).status).toBe("aborted");
  });

  it("should keep weight-version spans across a partial-rollout resume", () => {
    const { forest, renderer } = charForest();
    const plan = forest.beginTurn(state([S, U]));
    const message = assistant("abcdef");
    const outputIds = renderer.renderResponse(message);
    const result = forest.commitResponse(plan, {
      outputIds,
      logprobs: outputIds.map(() => -0.5),
      finishReason: "stop",
      message,
      weightVersionSpans: [
        { version: "7", start: 0, end: 4 },
        { version: "8", start: 4, end: outputIds.length },
      ],
    });
    const sample = forest.buildSample(result.node.stateHash);
    expect(sample.weightVersions).toEqual(["7", "8"]);
    expect(sample.weightVersionSpans).toEqual([
      { version: "7", start: 0, end: 4 },
      { version: "8", start: 4, end: 7 },
    ]);
    expect(sample.turns[0]!.weightVersion).toBe("8");
  });

  it("should reject a state already committed as an observation (hash collision)", () => {
    const { forest, renderer } = charForest();
    const plan = forest.beginTurn(state([S, U]));
    // The agent sends its own assistant message before the generation lands.
    const own = forest.beginTurn(state([S, U, assistant("mine")]));
    expect(own.transition).toBe("append");
    expect(() => generate(forest, renderer, plan, assistant("mine"))).toThrow(StateConflictError);
  });
});

describe("SessionForest: failed generations", () => {
  it("should keep the observation of a failed turn and generate from it on a retry", () => {
    const { forest, renderer } = charForest();
    const first = forest.beginTurn(state([S, U]));
    forest.failTurn(first, { reason: "engine 503" });
    expect(forest.turns()[0]).toMatchObject({ status: "failed", failure: "engine 503" });
    const retry = forest.beginTurn(state([S, U]));
    expect(retry).toMatchObject({
      observationStateHash: first.observationStateHash,
      transition: "append",
      observationCreated: false,
    });
    const done = generate(forest, renderer, retry, R2);
    expect(forest.implicitExportLeaf().stateHash).toBe(done.node.stateHash);
  });

  it("should replace an unanswered observation by a sibling when the next request extends it", () => {
    const { forest, renderer } = charForest();
    const r1 = generate(forest, renderer, forest.beginTurn(state([S, U])), R1);
    const failed = forest.beginTurn(state([S, U, R1, T1]));
    forest.failTurn(failed);
    const extended = forest.beginTurn(state([S, U, R1, T1, user("more")]));
    expect(extended).toMatchObject({ transition: "append", linear: true, observationCreated: true });
    const node = forest.node(extended.observationStateHash)!;
    expect(node.parentStateHash).toBe(r1.node.stateHash);
    expect(node.kind === "observation" && node.messages).toEqual([T1, user("more")]);
    expect(forest.node(failed.observationStateHash)).toMatchObject({
      supersededBy: extended.observationStateHash,
      failure: "failed",
    });
    // The delta is rendered once from the response, as the template would, never after a generation prompt.
    expect(renderer.decode(extended.inputIds).slice(PROMPT.length + R1_TEXT.length)).toBe(
      "\n<|im_start|>tool\n3<|im_end|>\n<|im_start|>user\nmore<|im_end|>\n<|im_start|>assistant\n",
    );
    const done = generate(forest, renderer, extended, R2);
    expect(forest.leaves()).toHaveLength(2);
    expect(forest.implicitExportLeaf().stateHash).toBe(done.node.stateHash);
  });

  it("should export a failed final observation with status failed", () => {
    const { forest, renderer } = charForest();
    generate(forest, renderer, forest.beginTurn(state([S, U])), R1);
    const last = forest.beginTurn(state([S, U, R1, T1]));
    forest.failTurn(last, { reason: "client disconnected" });
    const leaf = forest.implicitExportLeaf();
    expect(leaf.stateHash).toBe(last.observationStateHash);
    expect(forest.buildSample(leaf.stateHash)).toMatchObject({ status: "failed", turnCount: 1 });
  });
});

describe("SessionForest: context limit", () => {
  it("should refuse an observation that leaves no room to generate, committing nothing", () => {
    const { forest } = charForest({ maxContextTokens: 20 });
    let error: unknown;
    try {
      forest.beginTurn(state([S, U]));
    } catch (caught) {
      error = caught;
    }
    expect(SessionContextLengthError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      maxContextLength: 20,
      totalTokens: 31,
      promptTokens: 31,
      requestedTokens: undefined,
      stage: "observation",
      sessionId: "s1",
    });
    expect(forest.stats()).toMatchObject({ nodes: 1, turns: 0 });
  });

  it("should clamp maxNewTokens to the room left", () => {
    const { forest } = charForest({ maxContextTokens: 40 });
    // The prompt is 31 tokens: 11 (system) + 9 (user) + 11 (generation prompt).
    expect(forest.beginTurn(state([S, U]), { maxNewTokens: 100 }).maxNewTokens).toBe(9);
    expect(forest.beginTurn(state([S, U]), { maxNewTokens: 5 }).maxNewTokens).toBe(5);
    expect(forest.beginTurn(state([S, U])).maxNewTokens).toBe(9);
  });

  it("should refuse a generation longer than the budget, committing nothing", () => {
    const { forest, renderer } = charForest({ maxContextTokens: 40 });
    const plan = forest.beginTurn(state([S, U]));
    expect(() => generate(forest, renderer, plan, assistant("far too long"))).toThrowError(
      expect.objectContaining({
        name: "SessionContextLengthError",
        stage: "generation",
        totalTokens: 44,
        requestedTokens: 13,
        promptTokens: 31,
      }),
    );
    expect(forest.stats().responses).toBe(0);
    expect(forest.turns()[0]!.status).toBe("pending");
  });
});

describe("SessionForest: resets and subtrees", () => {
  it("should start a new subtree when tools or kwargs change", () => {
    const { forest, renderer } = charForest();
    generate(forest, renderer, forest.beginTurn(state([S, U])), R2);
    const withTools = forest.beginTurn(
      state([S, U], { tools: [{ type: "function", function: { name: "f", parameters: {} } }] }),
    );
    const withKwargs = forest.beginTurn(state([S, U], { chatTemplateKwargs: { enable_thinking: false } }));
    expect([withTools.transition, withKwargs.transition]).toEqual(["reset", "reset"]);
    expect(forest.stats().subtrees).toBe(3);
    expect(
      renderer
        .decode(withKwargs.inputIds)
        .startsWith('<|im_start|>kwargs\n{"enable_thinking":false}<|im_end|>\n'),
    ).toBe(true);
  });

  it("should treat compaction as a reset linked to the history it replaced", () => {
    const { forest, renderer } = charForest({ rolloutId: "rollout-9" });
    generate(forest, renderer, forest.beginTurn(state([S, U])), R1);
    const before = generate(forest, renderer, forest.beginTurn(state([S, U, R1, T1])), R2);
    const summary = user("Summary: the sum is 3.");
    const compacted = forest.beginTurn(state([S, summary]));
    expect(compacted).toMatchObject({ transition: "reset", linear: false, parentStateHash: ROOT_STATE_HASH });
    const after = generate(forest, renderer, compacted, assistant("final"));
    const first = forest.buildSample(before.node.stateHash);
    const second = forest.buildSample(after.node.stateHash);
    expect(second.resetFrom).toBe(before.node.stateHash);
    expect(first.resetFrom).toBeUndefined();
    expect([first.rolloutId, second.rolloutId]).toEqual(["rollout-9", "rollout-9"]);
    expect(first.segmentStateHash).not.toBe(second.segmentStateHash);
    expect(forest.exportableLeaves().map((leaf) => leaf.stateHash)).toEqual([
      before.node.stateHash,
      after.node.stateHash,
    ]);
    expect(() => forest.implicitExportLeaf()).toThrowError(
      "implicit export requires one committed leaf, found 2",
    );
  });

  it("should link a compaction that keeps the first messages to the history it replaced", () => {
    const { forest, renderer } = charForest();
    generate(forest, renderer, forest.beginTurn(state([S, U])), R1);
    const before = generate(forest, renderer, forest.beginTurn(state([S, U, R1, T1])), R2);
    // The agent keeps system + task and replaces the rest by a summary: a new segment under the root.
    const compacted = forest.beginTurn(state([S, U, user("Summary: add gave 3.")]));
    expect(compacted).toMatchObject({ transition: "branch", linear: false });
    const node = forest.node(compacted.observationStateHash)!;
    expect(node.parentStateHash).toBe(forest.rootStateHash);
    expect(node.kind === "observation" && node.resetFrom).toBe(before.node.stateHash);
    const after = generate(forest, renderer, compacted, assistant("3"));
    expect(forest.buildSample(after.node.stateHash)).toMatchObject({
      resetFrom: before.node.stateHash,
      turnCount: 1,
    });
  });

  it("should count a request after an unanswered first request as the session's first (nothing trained was left)", () => {
    const { forest, renderer } = charForest();
    // A first context that never got a response (failed, or abandoned), then another first request: the
    // session's history is still one context.
    const abandoned = forest.beginTurn(state([S, user("abandoned")]));
    forest.failTurn(abandoned, { reason: "engine fault" });
    generate(forest, renderer, forest.beginTurn(state([S, U])), R1);
    const leaf = generate(forest, renderer, forest.beginTurn(state([S, U, R1, T1])), R2);
    expect(forest.turns().map((turn) => [turn.transition, turn.linear, turn.status])).toEqual([
      ["append", true, "failed"],
      ["append", true, "committed"],
      ["append", true, "committed"],
    ]);
    expect(forest.implicitExportLeaf().stateHash).toBe(leaf.node.stateHash);
  });

  it("should refuse implicit export of a branch off an answered state, an unanswered observation being a leaf", () => {
    const { forest, renderer } = charForest();
    // The tool result T1 failed to generate; the agent sent T2 instead: a branch. The unanswered T1 stays an
    // exportable leaf (explicit export records may name it), so implicit export sees two leaves.
    generate(forest, renderer, forest.beginTurn(state([S, U])), R1);
    forest.failTurn(forest.beginTurn(state([S, U, R1, T1])), { reason: "engine fault" });
    generate(forest, renderer, forest.beginTurn(state([S, U, R1, T2])), R2);
    expect(forest.turns().map((turn) => [turn.transition, turn.linear])).toEqual([
      ["append", true],
      ["append", true],
      ["branch", false],
    ]);
    expect(() => forest.implicitExportLeaf()).toThrowError(
      /implicit export requires one committed leaf, found 2/,
    );
  });
});

describe("SessionForest: export matching and samples", () => {
  it("should name the failure of an export record", () => {
    const { forest, renderer } = charForest();
    generate(forest, renderer, forest.beginTurn(state([S, U])), R2);
    expect(() => forest.matchExportState(state([S, U, assistant("never said")]))).toThrowError(
      expect.objectContaining({ name: "ExportMatchError", reason: "no_match", matchedMessages: 2 }),
    );
    let error: unknown;
    try {
      forest.matchExportState(state([S, U]));
    } catch (caught) {
      error = caught;
    }
    expect(ExportMatchError.isInstance(error) && error.reason).toBe("no_response");
  });

  it("should refuse a sample from a lineage without a response", () => {
    const { forest } = charForest();
    const plan = forest.beginTurn(state([S, U]));
    expect(() => forest.buildSample(plan.observationStateHash)).toThrow(NoResponseError);
    expect(() => forest.buildSample("0".repeat(64))).toThrow(UnknownStateError);
    expect(() => forest.buildSample(ROOT_STATE_HASH)).toThrow(NoResponseError);
  });
});

describe("SessionForest: input errors", () => {
  it("should name the offending field", () => {
    const { forest, renderer } = charForest();
    const cases: Array<[() => unknown, string]> = [
      [() => forest.beginTurn(state([])), "state.messages: must be a non-empty list of canonical messages"],
      [
        () => forest.beginTurn(state([S, { role: "user", content: 3 } as never])),
        "state.messages[1].content",
      ],
      [
        () => forest.beginTurn(state([S, U]), { maxNewTokens: 0 }),
        "maxNewTokens: must be a positive integer, got 0",
      ],
    ];
    for (const [act, message] of cases) {
      expect(act).toThrowError(expect.objectContaining({ name: "ForestInputError" }));
      expect(act).toThrowError(message);
    }
    const plan = forest.beginTurn(state([S, U]));
    const commit = (input: object) => () =>
      forest.commitResponse(plan, {
        outputIds: [1, 2],
        logprobs: [-1, -1],
        finishReason: "stop",
        message: R2,
        ...input,
      });
    expect(commit({ outputIds: [] })).toThrowError("outputIds: must hold at least one generated token");
    expect(commit({ outputIds: [1, -2] })).toThrowError(
      "outputIds[1]: must be a token id in [0, 2^31), got -2",
    );
    expect(commit({ logprobs: [-1] })).toThrowError(/^logprobs: has 1 entries but outputIds has 2/);
    expect(commit({ logprobs: [-1, Number.NaN] })).toThrowError(
      "logprobs[1]: must be a finite number, got NaN",
    );
    expect(commit({ finishReason: "tool_calls" })).toThrowError(
      'finishReason: must be "stop", "length" or "abort", got "tool_calls"',
    );
    expect(commit({ message: user("x") })).toThrowError("message.role: must be an assistant message");
    expect(commit({ weightVersionSpans: [{ version: "1", start: 0, end: 1 }] })).toThrowError(
      "weightVersionSpans: spans end at 1 but the response has 2 tokens",
    );
    expect(() =>
      forest.commitResponse(
        { ...plan, turnId: 9 },
        { outputIds: [1], logprobs: [0], finishReason: "stop", message: R2 },
      ),
    ).toThrowError("plan: is not a turn of this session forest");
    const done = generate(forest, renderer, plan, R2);
    expect(() => forest.beginTurn(state([S, U, R2]))).toThrowError(
      `state.messages: ends with the committed response ${done.node.stateHash}; a request must add a message after a response`,
    );
    expect(ForestInputError.isInstance(new ForestInputError({ path: "a", reason: "b" }))).toBe(true);
  });
});
