import { describe, expect, it } from "vitest";
import { assistant, call, charForest, generate, state, system, tool, user } from "../test/helpers";
import { SessionForest } from "./session-forest";
import { forestSnapshotSchema } from "./snapshot/forest-snapshot";

const S = system("S");
const U = user("u");
const R1 = assistant("", { tool_calls: [call("add", '{"a":1,"b":2}')] });
const T1 = tool("3");
const R2 = assistant("done");
const SUMMARY = user("Summary: add gave 3.");

describe("SessionForest: compaction segments", () => {
  function compacted(segment: "compaction" | undefined) {
    const built = charForest({ rolloutId: "rollout-7" });
    const { forest, renderer } = built;
    generate(forest, renderer, forest.beginTurn(state([S, U])), R1);
    const before = generate(forest, renderer, forest.beginTurn(state([S, U, R1, T1])), R2);
    const restart = forest.beginTurn(state([S, SUMMARY]), segment ? { segment } : {});
    const after = generate(forest, renderer, restart, assistant("final"));
    return { ...built, before, restart, after };
  }

  it("should record the restart after a compaction as a segment start and export one leaf per segment", () => {
    const { forest, before, restart, after } = compacted("compaction");
    expect(restart).toMatchObject({ transition: "reset", linear: false, segment: "compaction", turnId: 2 });
    expect(forest.implicitExportSegments().map((leaf) => leaf.stateHash)).toEqual([
      before.node.stateHash,
      after.node.stateHash,
    ]);
    const second = forest.buildSample(after.node.stateHash);
    expect(second.resetFrom).toBe(before.node.stateHash);
    expect([forest.buildSample(before.node.stateHash).rolloutId, second.rolloutId]).toEqual([
      "rollout-7",
      "rollout-7",
    ]);
    // implicitExportLeaf keeps its single-leaf contract.
    expect(() => forest.implicitExportLeaf()).toThrowError(
      `implicit export requires one committed leaf, found 2: ${before.node.stateHash.slice(0, 12)} (turn 1, response), ${after.node.stateHash.slice(0, 12)} (turn 2, response)`,
    );
  });

  it("should keep refusing a reset nobody marked as a compaction", () => {
    const { forest } = compacted(undefined);
    expect(forest.turns()[2]!.segment).toBeUndefined();
    expect(() => forest.implicitExportSegments()).toThrowError(
      "implicit export requires one committed leaf, found 2",
    );
  });

  it("should ignore the marker on a turn that continues the current subtree", () => {
    const { forest, renderer } = charForest();
    generate(forest, renderer, forest.beginTurn(state([S, U])), R1);
    const plan = forest.beginTurn(state([S, U, R1, T1]), { segment: "compaction" });
    expect(plan.segment).toBeUndefined();
    const leaf = generate(forest, renderer, plan, R2);
    expect(forest.implicitExportSegments().map((node) => node.stateHash)).toEqual([leaf.node.stateHash]);
  });

  it("should refuse a segment with two leaves and other non-linear turns between compactions", () => {
    const { forest, renderer, restart, after } = compacted("compaction");
    // A second generation from the summary's observation: a branch inside the last segment, two leaves.
    const other = generate(forest, renderer, forest.beginTurn(state([S, SUMMARY])), assistant("other"));
    expect(() => forest.implicitExportSegments()).toThrowError(
      `implicit export requires one committed leaf per segment, but segment ${restart.observationStateHash.slice(0, 12)} has 2: ` +
        `${after.node.stateHash.slice(0, 12)} (turn 2, response), ${other.node.stateHash.slice(0, 12)} (turn 3, response); ` +
        "write explicit export records (docs/contract.md#export-records)",
    );

    const fork = compacted("compaction");
    fork.forest.beginTurn(state([S, user("unrelated")]));
    expect(() => fork.forest.implicitExportSegments()).toThrowError(
      "implicit export requires strictly linear history between segment starts (compactions, agent switches), but turn 3 was a reset; write explicit export records (docs/contract.md#export-records)",
    );
    // The same system prompt and tools as the segment it left: a rewrite of history, not an agent switch.
    expect(fork.forest.turns()[3]).toMatchObject({ transition: "reset", linear: false });
    expect(fork.forest.turns()[3]!.segment).toBeUndefined();
  });

  it("should name the request class recorded in response metadata when it lists leaves", () => {
    const { forest, renderer } = charForest();
    const main = forest.beginTurn(state([S, U]));
    const output = renderer.renderResponse(R2);
    forest.commitResponse(main, {
      outputIds: output,
      logprobs: output.map(() => -1),
      finishReason: "stop",
      message: R2,
      metadata: { requestClass: "main" },
    });
    const title = forest.beginTurn(state([system("title it"), U]));
    forest.commitResponse(title, {
      outputIds: output,
      logprobs: output.map(() => -1),
      finishReason: "stop",
      message: R2,
      metadata: { requestClass: "title" },
    });
    expect(() => forest.implicitExportLeaf()).toThrowError(
      /found 2: [0-9a-f]{12} \(turn 0, main\), [0-9a-f]{12} \(turn 1, title\)$/,
    );
  });

  it("should keep the segment marker through a snapshot", () => {
    const { forest, renderer, before, after } = compacted("compaction");
    const snapshot = forestSnapshotSchema.parse(JSON.parse(JSON.stringify(forest.toSnapshot())));
    expect(snapshot.turns[2]!.segment).toBe("compaction");
    const restored = SessionForest.fromSnapshot(snapshot, { renderer });
    expect(restored.implicitExportSegments().map((leaf) => leaf.stateHash)).toEqual([
      before.node.stateHash,
      after.node.stateHash,
    ]);
  });
});
