import { describe, expect, it } from "vitest";
import { assistant, charForest, generate, state, system, tool, user } from "../../test/helpers";
import { SnapshotError } from "../errors/snapshot-error";
import { SessionForest } from "../session-forest";
import { createCharRenderer } from "../testing/char-renderer";
import { FOREST_SNAPSHOT_FORMAT, parseSnapshotInput } from "./forest-snapshot";

function sampleForest() {
  const { forest, renderer } = charForest({ maxContextTokens: 500, metadata: { task: 7 }, rolloutId: "r" });
  const call = { id: "c", type: "function" as const, function: { name: "f", arguments: '{"q":1}' } };
  const r1 = generate(
    forest,
    renderer,
    forest.beginTurn(state([system("S"), user("u")]), { requestId: "a" }),
    assistant("", { reasoning_content: "t", tool_calls: [call] }),
    { weightVersion: "1" },
  );
  const failed = forest.beginTurn(
    state([system("S"), user("u"), assistant("", { tool_calls: [call] }), tool("x", "c")]),
  );
  forest.failTurn(failed, { reason: "timeout" });
  forest.beginTurn(state([system("S"), user("other")]));
  return { forest, r1 };
}

describe("forest snapshots", () => {
  it("should round-trip through JSON text losslessly", () => {
    const { forest } = sampleForest();
    const snapshot = forest.toSnapshot();
    expect(snapshot.format).toBe(FOREST_SNAPSHOT_FORMAT);
    const text = JSON.stringify(snapshot);
    const restored = SessionForest.fromSnapshot(text, { renderer: createCharRenderer() });
    expect(JSON.stringify(restored.toSnapshot())).toBe(text);
    expect(restored.turns()).toEqual(forest.turns());
    expect(restored.nodes()).toEqual(forest.nodes());
    expect([restored.policy, restored.maxContextTokens, restored.rolloutId, restored.metadata]).toEqual([
      "tolerant",
      500,
      "r",
      { task: 7 },
    ]);
  });

  it("should keep node storage compact after a restore", () => {
    const { forest, r1 } = sampleForest();
    const restored = SessionForest.fromSnapshot(forest.toSnapshot(), { renderer: createCharRenderer() });
    const node = restored.node(r1.node.stateHash)!;
    expect(node.tokens).toBeInstanceOf(Int32Array);
    // The sample's logprobs are float32 values: 4 bytes each, as before the snapshot.
    expect(node.kind === "response" && node.logprobs).toBeInstanceOf(Float32Array);
  });

  it("should name what is wrong with a damaged snapshot", () => {
    const { forest } = sampleForest();
    const cases: Array<[(s: ReturnType<SessionForest["toSnapshot"]>) => unknown, RegExp]> = [
      [(s) => ({ ...s, format: "v0" }), /^snapshot format: /],
      [
        (s) => ({ ...s, nodes: [s.nodes[1], s.nodes[0], ...s.nodes.slice(2)] }),
        /^snapshot nodes\[0\]\.parentStateHash: does not name an earlier node$/,
      ],
      [
        (s) => {
          const copy = structuredClone(s);
          const node = copy.nodes[0]!;
          if (node.kind === "observation") node.messages = [...node.messages, user("injected")];
          return copy;
        },
        /^snapshot nodes\[0\]\.stateHash: does not match its messages \(recomputed [0-9a-f]{64}\)$/,
      ],
      [
        (s) => {
          const copy = structuredClone(s);
          const node = copy.nodes[1]!;
          if (node.kind === "response") node.logprobs = node.logprobs.slice(1);
          return copy;
        },
        /^snapshot nodes\[1\]\.logprobs: must align 1:1 with tokens$/,
      ],
      [
        (s) => ({ ...s, turns: [s.turns[1], s.turns[0], ...s.turns.slice(2)] }),
        /^snapshot turns\[0\]\.turnId: must be 0$/,
      ],
      [
        (s) => ({ ...s, turns: s.turns.slice(0, 1) }),
        /^snapshot nodes\[2\]\.turnId: does not name a recorded turn$/,
      ],
      [(s) => ({ ...s, nodes: [{ ...s.nodes[0], tokens: [-1] }] }), /^snapshot nodes\[0\]\.tokens\[0\]: /],
    ];
    for (const [damage, message] of cases) {
      let error: unknown;
      try {
        SessionForest.fromSnapshot(damage(forest.toSnapshot()), { renderer: createCharRenderer() });
      } catch (caught) {
        error = caught;
      }
      expect(SnapshotError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(message);
    }
    expect(() => SessionForest.fromSnapshot("{", { renderer: createCharRenderer() })).toThrowError(
      "snapshot $: is not valid JSON",
    );
  });
});

describe("parseSnapshotInput", () => {
  it("should return a private copy of the input, unknown keys and key order kept", () => {
    const snapshot = { extra: 1, ...sampleForest().forest.toSnapshot() };
    const parsed = parseSnapshotInput(snapshot);
    expect(parsed).not.toBe(snapshot);
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(snapshot));
    expect(JSON.stringify(parseSnapshotInput(JSON.stringify(snapshot)))).toBe(JSON.stringify(snapshot));
  });

  it("should name text that is not JSON, a value that cannot be cloned and the first schema issue", () => {
    expect(() => parseSnapshotInput("{")).toThrowError("snapshot $: is not valid JSON");
    expect(() => parseSnapshotInput({ f: () => 1 })).toThrowError("snapshot $: is not a JSON value");
    expect(() => parseSnapshotInput(3)).toThrowError(/^snapshot \$: /);
    const { forest } = sampleForest();
    expect(() => parseSnapshotInput({ ...forest.toSnapshot(), sessionId: "" })).toThrowError(
      /^snapshot sessionId: /,
    );
  });
});
