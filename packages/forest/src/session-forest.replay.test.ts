import { describe, expect, it } from "vitest";
import { assistant, charForest, generate, state, system, user } from "../test/helpers";
import { ForestInputError } from "./errors/forest-input-error";
import { UnknownStateError } from "./errors/unknown-state-error";
import { SessionForest } from "./session-forest";

const first = state([system("Be brief."), user("What is 2+2?")]);

describe("SessionForest.commitReplay: an identical request answered again", () => {
  it("should commit a sequential repeat to the existing response, keep history linear and export one leaf", () => {
    const { forest, renderer } = charForest();
    const original = forest.beginTurn(first);
    const answered = generate(forest, renderer, original, assistant("4"));
    const repeat = forest.beginTurn(first);
    // Begun as a second generation from one state, the repeat is a branch until it is replayed.
    expect([repeat.observationCreated, repeat.transition, repeat.linear]).toEqual([false, "branch", false]);
    const replayed = forest.commitReplay(repeat, answered.node.stateHash);
    expect([replayed.created, replayed.transition, replayed.node.stateHash]).toEqual([
      false,
      "append",
      answered.node.stateHash,
    ]);
    const record = forest.turns()[1]!;
    expect(record).toMatchObject({
      turnId: 1,
      status: "committed",
      transition: "append",
      linear: true,
      replayOf: 0,
      responseStateHash: answered.node.stateHash,
    });
    // The next turn continues the one context; implicit export trains it with the original tokens.
    const next = forest.beginTurn(state([...first.messages, assistant("4"), user("And 3+3?")]));
    const last = generate(forest, renderer, next, assistant("6"));
    expect(forest.implicitExportLeaf().stateHash).toBe(last.node.stateHash);
    const sample = forest.buildSample(last.node.stateHash);
    const firstIds = renderer.renderResponse(assistant("4"));
    expect(sample.tokens.slice(sample.promptLength, sample.promptLength + firstIds.length)).toEqual(firstIds);
    expect(sample.lossMask.filter((bit) => bit === 1)).toHaveLength(
      firstIds.length + renderer.renderResponse(assistant("6")).length,
    );
  });

  it("should refuse a turn that added an observation, a committed turn and a response of another observation", () => {
    const { forest, renderer } = charForest();
    const original = forest.beginTurn(first);
    const answered = generate(forest, renderer, original, assistant("4"));
    expect(() => forest.commitReplay(original, answered.node.stateHash)).toThrow(ForestInputError);
    const other = forest.beginTurn(state([...first.messages, assistant("4"), user("And 3+3?")]));
    expect(other.observationCreated).toBe(true);
    expect(() => forest.commitReplay(other, answered.node.stateHash)).toThrow(
      /added an observation; only a repeat of an answered state is replayed/,
    );
    const repeat = forest.beginTurn(first);
    const otherAnswer = generate(forest, renderer, other, assistant("6"));
    expect(() => forest.commitReplay(repeat, otherAnswer.node.stateHash)).toThrow(UnknownStateError);
    expect(forest.turns()[2]!.status).toBe("pending");
  });

  it("should keep replayOf through a snapshot", () => {
    const { forest, renderer } = charForest();
    const answered = generate(forest, renderer, forest.beginTurn(first), assistant("4"));
    forest.commitReplay(forest.beginTurn(first), answered.node.stateHash);
    const snapshot = JSON.parse(JSON.stringify(forest.toSnapshot()));
    const restored = SessionForest.fromSnapshot(snapshot, { renderer });
    expect(restored.turns().map((turn) => turn.replayOf)).toEqual([undefined, 0]);
    expect(restored.implicitExportLeaf().stateHash).toBe(answered.node.stateHash);
  });
});
