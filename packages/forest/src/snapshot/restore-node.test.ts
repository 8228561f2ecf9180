import { describe, expect, it } from "vitest";
import { assistant, charForest, generate, state, system, user } from "../../test/helpers";
import { SnapshotError } from "../errors/snapshot-error";
import {
  type KnownNode,
  knownNode,
  restoreObservation,
  restoreResponse,
  type SnapshotObservation,
  type SnapshotResponse,
} from "./restore-node";

const ROOT: KnownNode = { kind: "root", prefix: 0, trainPrefix: 0, messages: 0 };

/** A one-turn forest's snapshot nodes: its first observation and its response. */
function twoNodes() {
  const { forest, renderer } = charForest();
  generate(forest, renderer, forest.beginTurn(state([system("S"), user("u")])), assistant("hi"), {
    weightVersion: "7",
  });
  const [observation, response] = forest.toSnapshot().nodes as [SnapshotObservation, SnapshotResponse];
  return { forest, observation, response };
}

function reasonOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(SnapshotError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error("did not throw");
}

describe("restoreObservation", () => {
  it("should rebuild a subtree's first observation as the forest holds it", () => {
    const { forest, observation } = twoNodes();
    const restored = restoreObservation(observation, { path: "nodes[0]", parent: ROOT, order: 1 });
    expect(restored.tokens).toBeInstanceOf(Int32Array);
    expect(restored).toEqual({ ...forest.node(observation.stateHash)!, children: [] });
    expect([restored.order, restored.prefixTokens, restored.messageCount]).toEqual([1, 0, 2]);
  });

  it("should reject a wrong parent, missing subtree settings and a changed message", () => {
    const { observation } = twoNodes();
    const after = { path: "nodes[3]", parent: { ...ROOT, kind: "observation" as const }, order: 4 };
    expect(reasonOf(() => restoreObservation(observation, after))).toBe(
      "snapshot nodes[3].parentStateHash: an observation cannot follow an observation",
    );
    const { tools: _tools, ...bare } = observation;
    expect(reasonOf(() => restoreObservation(bare, { path: "nodes[0]", parent: ROOT, order: 1 }))).toBe(
      "snapshot nodes[0]: tools and chatTemplateKwargs are required on, and only on, a subtree's first observation",
    );
    const edited = { ...observation, messages: [system("S"), user("changed")] };
    expect(reasonOf(() => restoreObservation(edited, { path: "nodes[0]", parent: ROOT, order: 1 }))).toMatch(
      /^snapshot nodes\[0\]\.stateHash: does not match its messages \(recomputed [0-9a-f]{64}\)$/,
    );
  });
});

describe("restoreResponse", () => {
  it("should rebuild a response after its observation, with prefixes from the parent", () => {
    const { forest, observation, response } = twoNodes();
    const parent = knownNode(observation, ROOT);
    const restored = restoreResponse(response, { path: "nodes[1]", parent, order: 2 });
    // Float32-exact logprobs (-1, -1.0009765625, …) come back in 4-byte storage, bit-identical.
    expect(restored.logprobs).toBeInstanceOf(Float32Array);
    expect(restored).toEqual({ ...forest.node(response.stateHash)!, children: [] });
    expect([restored.prefixTokens, restored.messageCount]).toEqual([observation.tokens.length, 3]);
  });

  it("should reject a response after the root and weight-version spans that do not tile the tokens", () => {
    const { observation, response } = twoNodes();
    const parent = knownNode(observation, ROOT);
    expect(reasonOf(() => restoreResponse(response, { path: "nodes[1]", parent: ROOT, order: 2 }))).toBe(
      "snapshot nodes[1].parentStateHash: a response must follow an observation",
    );
    const n = response.tokens.length;
    const gap = { ...response, weightVersionSpans: [{ version: "7", start: 1, end: n }] };
    expect(reasonOf(() => restoreResponse(gap, { path: "nodes[1]", parent, order: 2 }))).toBe(
      "snapshot nodes[1].weightVersionSpans[0]: spans must tile the tokens",
    );
    const short = { ...response, weightVersionSpans: [{ version: "7", start: 0, end: n - 1 }] };
    expect(reasonOf(() => restoreResponse(short, { path: "nodes[1]", parent, order: 2 }))).toBe(
      "snapshot nodes[1].weightVersionSpans: spans must cover every token",
    );
    const unaligned = { ...response, logprobs: response.logprobs.slice(1) };
    expect(reasonOf(() => restoreResponse(unaligned, { path: "nodes[1]", parent, order: 2 }))).toBe(
      "snapshot nodes[1].logprobs: must align 1:1 with tokens",
    );
  });
});

describe("knownNode", () => {
  it("should add the node's tokens (training tokens when it has them) and messages to its parent's", () => {
    const { observation, response } = twoNodes();
    const parent: KnownNode = { kind: "response", prefix: 10, trainPrefix: 20, messages: 3 };
    expect(knownNode({ ...observation, tokens: [1, 2], trainTokens: [1, 2, 3, 4] }, parent)).toEqual({
      kind: "observation",
      prefix: 12,
      trainPrefix: 24,
      messages: 5,
    });
    expect(knownNode({ ...response, tokens: [5, 6, 7] }, parent)).toEqual({
      kind: "response",
      prefix: 13,
      trainPrefix: 23,
      messages: 4,
    });
  });
});
