import type { FunctionTool } from "@relax/chat";
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
import { SessionForest } from "./session-forest";
import { forestSnapshotSchema } from "./snapshot/forest-snapshot";
import { CHAR_IM_END } from "./testing/char-renderer";

const fn = (name: string): FunctionTool => ({ type: "function", function: { name, parameters: {} } });

// Agent A (triage) with tools T, then agent B (weather) with tools U, carrying A's history over: the shape
// of an @openai/agents handoff (instructions and tools change, the conversation is kept).
const A = system("You triage.");
const B = system("You report the weather.");
const T = [fn("transfer_to_weather")];
const U = [fn("get_weather")];
const Q = user("Weather in Paris?");
const R1 = assistant("", { tool_calls: [call("transfer_to_weather", "{}")] });
const T1 = tool('{"assistant":"weather"}');
const R2 = assistant("Handing over.");
const R3 = assistant("", { tool_calls: [call("get_weather", '{"city":"Paris"}', "call_2")] });
const T2 = tool("sunny", "call_2");
const R4 = assistant("Sunny in Paris.");

/** Triage answers (tool call → tool result → answer), then the weather agent takes over with the history. */
function handoff() {
  const built = charForest({ rolloutId: "rollout-3" });
  const { forest, renderer } = built;
  generate(forest, renderer, forest.beginTurn(state([A, Q], { tools: T })), R1);
  const triage = generate(forest, renderer, forest.beginTurn(state([A, Q, R1, T1], { tools: T })), R2);
  const switchPlan = forest.beginTurn(state([B, Q, R1, T1, R2], { tools: U }));
  generate(forest, renderer, switchPlan, R3);
  const weather = generate(
    forest,
    renderer,
    forest.beginTurn(state([B, Q, R1, T1, R2, R3, T2], { tools: U })),
    R4,
  );
  return { ...built, triage, switchPlan, weather };
}

/** The loss mask of `responses` generated in turn order, with observation deltas of `gaps` tokens between. */
function expectedMask(responses: number[][], gaps: number[]): number[] {
  return responses.flatMap((ids, i) => [
    ...ids.map(() => 1),
    ...(i < gaps.length ? Array(gaps[i]).fill(0) : []),
  ]);
}

describe("SessionForest: agent contexts", () => {
  it("should record a reset into another system prompt and tool set as an agent segment and export one leaf per agent", () => {
    const { forest, renderer, triage, switchPlan, weather } = handoff();
    expect(switchPlan).toMatchObject({ turnId: 2, transition: "reset", linear: false, segment: "agent" });
    expect(forest.turns().map((turn) => turn.segment)).toEqual([undefined, undefined, "agent", undefined]);

    const leaves = forest.implicitExportSegments();
    expect(leaves.map((leaf) => leaf.stateHash)).toEqual([triage.node.stateHash, weather.node.stateHash]);

    const [first, second] = leaves.map((leaf) => forest.buildSample(leaf.stateHash));
    // The triage context: its own prompt and its two generations.
    expect(first!.tokens).toEqual(
      renderer.renderState(state([A, Q, R1, T1, R2], { tools: T }), { addGenerationPrompt: false }),
    );
    expect(first!.promptLength).toBe(renderer.renderPrompt(state([A, Q], { tools: T })).length);
    expect(first!.segmentStart).toBeUndefined();
    expect(first!.resetFrom).toBeUndefined();
    // The weather context: B's tools and prompt, the carried history as observation (loss 0), its two turns.
    const prompt = renderer.renderPrompt(state([B, Q, R1, T1, R2], { tools: U }));
    expect(second!.tokens).toEqual(
      renderer.renderState(state([B, Q, R1, T1, R2, R3, T2, R4], { tools: U }), {
        addGenerationPrompt: false,
      }),
    );
    expect(second!.promptLength).toBe(prompt.length);
    const gap = renderer.renderObservationDelta({
      messages: [T2],
      tools: U,
      chatTemplateKwargs: {},
      previousResponseIds: renderer.renderResponse(R3),
    }).length;
    expect(second!.lossMask).toEqual(
      expectedMask([renderer.renderResponse(R3), renderer.renderResponse(R4)], [gap]),
    );
    expect(second!.rolloutLogProbs.slice(0, 2)).toEqual([fakeLogprob(2, 0), fakeLogprob(2, 1)]);
    expect(second!.tokens.at(-1)).toBe(CHAR_IM_END);
    expect(second).toMatchObject({
      segmentStart: "agent",
      resetFrom: triage.node.stateHash,
      rolloutId: "rollout-3",
      turnCount: 2,
    });
    expect(first!.segmentStateHash).not.toBe(second!.segmentStateHash);
  });

  it("should refuse the agent switch as non-linear when agent contexts are off, naming the fix", () => {
    const { forest } = handoff();
    let error: unknown;
    try {
      forest.implicitExportSegments({ agentContexts: false });
    } catch (caught) {
      error = caught;
    }
    expect(ExportMatchError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: "nonlinear", leafCount: 2 });
    expect((error as Error).message).toBe(
      "implicit export requires strictly linear history, but turn 2 was a reset that switched agent (new system prompt, tools " +
        'or chat-template kwargs) while agent contexts are off; train each agent as its own context (export option agentContexts: "train", ' +
        "--agent-contexts train) or write explicit export records (docs/contract.md#export-records)",
    );
    // implicitExportLeaf keeps its single-leaf contract.
    expect(() => forest.implicitExportLeaf()).toThrowError(
      "implicit export requires one committed leaf, found 2",
    );
  });

  it("should keep a reset under the same system prompt, tools and kwargs a plain non-linear reset", () => {
    const { forest, renderer } = charForest();
    generate(forest, renderer, forest.beginTurn(state([A, Q], { tools: T })), R2);
    // The app rewrote its history (another user message) under the same agent.
    const rewrite = forest.beginTurn(state([A, user("Weather in Rome?")], { tools: T }));
    expect(rewrite).toMatchObject({ transition: "reset", linear: false });
    expect(rewrite.segment).toBeUndefined();
    generate(forest, renderer, rewrite, R4);
    expect(() => forest.implicitExportSegments()).toThrowError(
      "implicit export requires one committed leaf, found 2",
    );
  });

  it("should start an agent context on a change of tools alone, of the system prompt alone, or of the kwargs", () => {
    // LangChain bindTools loop, then withStructuredOutput: the same messages, no tools.
    const structured = charForest();
    generate(
      structured.forest,
      structured.renderer,
      structured.forest.beginTurn(state([A, Q], { tools: T })),
      R1,
    );
    generate(
      structured.forest,
      structured.renderer,
      structured.forest.beginTurn(state([A, Q, R1, T1], { tools: T })),
      R2,
    );
    const final = structured.forest.beginTurn(state([A, Q, R1, T1, R2, user("Answer as JSON.")]));
    expect(final).toMatchObject({ transition: "reset", segment: "agent" });
    const answer = generate(structured.forest, structured.renderer, final, assistant('{"weather":"sunny"}'));
    expect(structured.forest.implicitExportSegments().map((leaf) => leaf.stateHash)).toHaveLength(2);
    expect(structured.forest.implicitExportSegments()[1]!.stateHash).toBe(answer.node.stateHash);

    const prompt = charForest();
    generate(prompt.forest, prompt.renderer, prompt.forest.beginTurn(state([A, Q], { tools: T })), R2);
    expect(prompt.forest.beginTurn(state([B, Q, R2, user("go on")], { tools: T })).segment).toBe("agent");

    const kwargs = charForest();
    generate(kwargs.forest, kwargs.renderer, kwargs.forest.beginTurn(state([A, Q])), R2);
    const thinking = kwargs.forest.beginTurn(
      state([A, Q, R2, user("go on")], { chatTemplateKwargs: { enable_thinking: false } }),
    );
    expect(thinking.segment).toBe("agent");
  });

  it("should record a compaction the gateway marked as a compaction even when the system prompt changed", () => {
    const { forest, renderer } = charForest();
    generate(forest, renderer, forest.beginTurn(state([A, Q], { tools: T })), R2);
    const restart = forest.beginTurn(state([B, user("Summary: asked for Paris.")], { tools: U }), {
      segment: "compaction",
    });
    expect(restart.segment).toBe("compaction");
  });

  it("should refuse two leaves in one agent context (leaf_count), naming the context and the fix", () => {
    const { forest, renderer, switchPlan, weather } = handoff();
    // A second generation from the weather agent's first state: a branch inside its context.
    const other = generate(
      forest,
      renderer,
      forest.beginTurn(state([B, Q, R1, T1, R2], { tools: U })),
      assistant("Rain?"),
    );
    expect(other.transition).toBe("branch");
    let error: unknown;
    try {
      forest.implicitExportSegments();
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ reason: "leaf_count", leafCount: 3 });
    expect((error as Error).message).toBe(
      `implicit export requires one committed leaf per segment, but agent context ${switchPlan.observationStateHash.slice(0, 12)} has 2: ` +
        `${weather.node.stateHash.slice(0, 12)} (turn 3, response), ${other.node.stateHash.slice(0, 12)} (turn 4, response); ` +
        "write explicit export records (docs/contract.md#export-records)",
    );
  });

  it("should continue an earlier agent's context when the session goes back to it, and export it last", () => {
    const { forest, renderer, triage, weather } = handoff();
    // The weather agent hands back: the triage agent's request extends its own last state (an append).
    const back = forest.beginTurn(
      state([A, Q, R1, T1, R2, user("Anything else?"), R3, T2, R4, user("Thanks.")], { tools: T }),
    );
    expect(back).toMatchObject({
      transition: "append",
      linear: true,
      parentStateHash: triage.node.stateHash,
    });
    expect(back.segment).toBeUndefined();
    const done = generate(forest, renderer, back, assistant("Bye."));
    expect(forest.implicitExportSegments().map((leaf) => leaf.stateHash)).toEqual([
      weather.node.stateHash,
      done.node.stateHash,
    ]);
    const sample = forest.buildSample(done.node.stateHash);
    expect(sample.segmentStart).toBeUndefined();
    expect(sample.turns.map((turn) => turn.turnId)).toEqual([0, 1, 4]);
  });

  it("should keep the agent segment marker through a snapshot", () => {
    const { forest, renderer, triage, weather } = handoff();
    const snapshot = forestSnapshotSchema.parse(JSON.parse(JSON.stringify(forest.toSnapshot())));
    expect(snapshot.turns[2]!.segment).toBe("agent");
    const restored = SessionForest.fromSnapshot(snapshot, { renderer });
    expect(restored.turns()[2]!.segment).toBe("agent");
    expect(restored.implicitExportSegments().map((leaf) => leaf.stateHash)).toEqual([
      triage.node.stateHash,
      weather.node.stateHash,
    ]);
    expect(restored.buildSample(weather.node.stateHash).segmentStart).toBe("agent");
    expect(() => restored.implicitExportSegments({ agentContexts: false })).toThrowError(
      /agent contexts are off/,
    );
  });
});
