/**
 * The two-session worked example of docs/contract.md#custom-advantage: two sampled sessions, each
 * exporting `main` and `searcher_0`; the hook input and output must be exactly the ones shown there.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { conversation, FakeForest } from "../../test/fake-forest";
import type { AdvantageInputSlot } from "../credit/advantage-function";
import { createExportPipeline } from "./create-export-pipeline";
import type { SessionExportInput } from "./group-export-outcome";

const fixtures = fileURLToPath(new URL("../../test/fixtures/", import.meta.url));

function seedSession({
  sessionId,
  outcome,
  usefulness,
}: {
  sessionId: string;
  outcome: number;
  usefulness: number;
}): SessionExportInput {
  const main = conversation(`Question for ${sessionId}`, `Final answer of ${sessionId}`);
  const searcher = conversation(`Search query of ${sessionId}`, `Search summary of ${sessionId}`);
  return {
    sessionId,
    forest: new FakeForest({ sessionId, conversations: [{ messages: main }, { messages: searcher }] }),
    // The records the example's first session writes to RELAX_OUTPUT_JSON (the second: outcome 0.0,
    // usefulness 0.2).
    output: {
      kind: "records",
      records: [
        { name: "main", messages: main, metadata: { outcome }, reward: outcome },
        { name: "searcher_0", messages: searcher, metadata: { usefulness } },
      ],
    },
  };
}

const config = {
  nSamplesPerPrompt: 2,
  multiContext: true,
  useDynamicBatchSize: true,
  maxTokensPerGpu: 16384,
  logPassrate: true,
};

describe("two-session custom advantage example", () => {
  it("should call the advantage function with exactly the example's input and keep its output", async () => {
    const calls: AdvantageInputSlot[][] = [];
    const pipeline = await createExportPipeline({
      config: {
        ...config,
        customAdvantage: (metadataBySlot: AdvantageInputSlot[]) => {
          calls.push(metadataBySlot);
          // main uses the outcome; searcher_0 uses outcome × usefulness.
          return metadataBySlot.map((slot) => ({
            main: slot.main!.outcome as number,
            searcher_0: (slot.main!.outcome as number) * (slot.searcher_0!.usefulness as number),
          }));
        },
      },
    });
    const outcome = await pipeline.exportGroup({
      groupIndex: 0,
      sessions: [
        seedSession({ sessionId: "session-a", outcome: 1.0, usefulness: 0.6 }),
        seedSession({ sessionId: "session-b", outcome: 0.0, usefulness: 0.2 }),
      ],
    });

    expect(calls).toEqual([
      [
        { main: { outcome: 1.0 }, searcher_0: { usefulness: 0.6 } },
        { main: { outcome: 0.0 }, searcher_0: { usefulness: 0.2 } },
      ],
    ]);
    // Byte-for-byte what Python's json.dumps(..., separators=(",", ":")) gives for the example's input
    // (modulo Python writing 1.0 / 0.0 for floats).
    expect(JSON.stringify(calls[0])).toBe(
      '[{"main":{"outcome":1},"searcher_0":{"usefulness":0.6}},{"main":{"outcome":0},"searcher_0":{"usefulness":0.2}}]',
    );

    expect(outcome.kind).toBe("exported");
    if (outcome.kind !== "exported") return;
    expect(
      outcome.rows.map((row) => ({
        session: row.session_id,
        context: row.context_name,
        advantage: row.advantage,
        reward: row.reward,
      })),
    ).toEqual([
      { session: "session-a", context: "main", advantage: 1.0, reward: 1.0 },
      { session: "session-a", context: "searcher_0", advantage: 0.6, reward: null },
      { session: "session-b", context: "main", advantage: 0.0, reward: 0.0 },
      { session: "session-b", context: "searcher_0", advantage: 0.0, reward: null },
    ]);
    // Sibling contexts of one session share the rollout id; the Group index is on every row.
    expect(outcome.rows.map((row) => row.rollout_id)).toEqual([
      "session-a:rollout",
      "session-a:rollout",
      "session-b:rollout",
      "session-b:rollout",
    ]);
    expect(outcome.rows.every((row) => row.group_index === 0)).toBe(true);
    // The scalar is broadcast over generated tokens only.
    for (const row of outcome.rows) {
      expect(row.advantages).toEqual(row.loss_mask.map((mask) => (mask === 1 ? row.advantage : 0)));
    }
  });

  it("should produce the example's output through a function loaded from module#export", async () => {
    const pipeline = await createExportPipeline({
      config: { ...config, customAdvantage: "./seed-advantage.mjs#advantageFunc" },
      baseDir: fixtures,
    });
    const outcome = await pipeline.exportGroup({
      groupIndex: 3,
      sessions: [
        seedSession({ sessionId: "a", outcome: 1.0, usefulness: 0.6 }),
        seedSession({ sessionId: "b", outcome: 0.0, usefulness: 0.2 }),
      ],
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    const bySlot = [0, 1].map((slot) =>
      Object.fromEntries(
        outcome.contexts.filter((context) => context.slot === slot).map((c) => [c.key, c.advantage]),
      ),
    );
    expect(bySlot).toEqual([
      { main: 1.0, searcher_0: 0.6 },
      { main: 0.0, searcher_0: 0.0 },
    ]);
  });

  it("should not call the advantage function in eval", async () => {
    let called = false;
    const pipeline = await createExportPipeline({
      config: {
        ...config,
        customAdvantage: () => {
          called = true;
          return null;
        },
      },
    });
    const outcome = await pipeline.exportGroup(
      {
        groupIndex: 0,
        sessions: [
          seedSession({ sessionId: "a", outcome: 1.0, usefulness: 0.6 }),
          seedSession({ sessionId: "b", outcome: 0.0, usefulness: 0.2 }),
        ],
      },
      { mode: "eval" },
    );
    expect(called).toBe(false);
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    expect(outcome.mode).toBe("eval");
    expect(outcome.rows.map((row) => [row.context_name, row.reward, row.advantage])).toEqual([
      ["main", 1, 0],
      ["searcher_0", null, 0],
      ["main", 0, 0],
      ["searcher_0", null, 0],
    ]);
  });
});
