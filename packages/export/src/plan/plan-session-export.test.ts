import { describe, expect, it } from "vitest";
import { conversation, FakeForest, qwen3 } from "../../test/fake-forest";
import { planSessionExport } from "./plan-session-export";

const main = conversation("Find the capital of France.", "Paris.");
const searcher = conversation("Search: capital of France", "Result: Paris is the capital.");

describe("planSessionExport", () => {
  it("should export the single leaf of a linear history implicitly, with name null", () => {
    const forest = new FakeForest({ sessionId: "s0", conversations: [{ messages: main }] });
    const plan = planSessionExport({
      sessionId: "s0",
      output: { kind: "implicit", metadata: { task_success: 1 }, reward: 1 },
      forest,
    });
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.kind).toBe("implicit");
    expect(plan.contexts).toHaveLength(1);
    const [context] = plan.contexts;
    expect(context!.name).toBeNull();
    expect(context!.stateHash).toBe(FakeForest.hashOf({ messages: main }));
    expect(context!.metadata).toEqual({ task_success: 1 });
    expect(context!.reward).toBe(1);
    const { encode } = qwen3();
    expect(context!.sample.tokens).toEqual([
      ...encode("<|im_start|>user\nFind the capital of France.<|im_end|>\n<|im_start|>assistant\n"),
      ...encode("Paris.<|im_end|>"),
    ]);
    expect(context!.sample.lossMask).toEqual(encode("Paris.<|im_end|>").map(() => 1));
  });

  it("should treat a null output as an implicit export without metadata or reward", () => {
    const forest = new FakeForest({ sessionId: "s0", conversations: [{ messages: main }] });
    const plan = planSessionExport({ sessionId: "s0", output: null, forest });
    expect(plan).toMatchObject({ ok: true, kind: "implicit", contexts: [{ name: null, metadata: {} }] });
  });

  it("should not share the metadata object with the agent output", () => {
    const forest = new FakeForest({ sessionId: "s0", conversations: [{ messages: main }] });
    const metadata = { nested: { a: 1 } };
    const plan = planSessionExport({ sessionId: "s0", output: { kind: "implicit", metadata }, forest });
    if (!plan.ok) throw new Error("expected ok");
    metadata.nested.a = 2;
    expect(plan.contexts[0]!.metadata).toEqual({ nested: { a: 1 } });
  });

  it("should make an ambiguous implicit export non-finalizable", () => {
    const forest = new FakeForest({
      sessionId: "s1",
      conversations: [{ messages: main }, { messages: searcher }],
    });
    const plan = planSessionExport({ sessionId: "s1", output: { kind: "implicit", reward: 1 }, forest });
    expect(plan).toMatchObject({ ok: false, sessionId: "s1", reason: "ambiguous_implicit_export" });
    if (plan.ok) return;
    expect(plan.message).toContain("implicit export requires one committed leaf, found 2");
    expect(forest.calls).not.toContain("buildSample");
  });

  it("should match explicit records to committed states, in record order", () => {
    const forest = new FakeForest({
      sessionId: "s2",
      conversations: [{ messages: main }, { messages: searcher }],
    });
    const plan = planSessionExport({
      sessionId: "s2",
      output: {
        kind: "records",
        records: [
          { name: "main", messages: main, metadata: { outcome: 1 }, reward: 1 },
          { name: "searcher_0", messages: searcher, metadata: { usefulness: 0.6 } },
        ],
      },
      forest,
    });
    if (!plan.ok) throw new Error(plan.message);
    expect(plan.kind).toBe("explicit");
    expect(plan.contexts.map((c) => [c.name, c.stateHash, c.metadata, c.reward, c.rewardPath])).toEqual([
      ["main", FakeForest.hashOf({ messages: main }), { outcome: 1 }, 1, "records[0].reward"],
      [
        "searcher_0",
        FakeForest.hashOf({ messages: searcher }),
        { usefulness: 0.6 },
        undefined,
        "records[1].reward",
      ],
    ]);
  });

  it("should match a record exported from a non-leaf committed state", () => {
    const long = conversation("q1", "a1", "q2", "a2");
    const forest = new FakeForest({ sessionId: "s", conversations: [{ messages: long }] });
    const plan = planSessionExport({
      sessionId: "s",
      output: { kind: "records", records: [{ name: "first_turn", messages: long.slice(0, 2) }] },
      forest,
    });
    if (!plan.ok) throw new Error(plan.message);
    expect(plan.contexts[0]!.sample.turnCount).toBe(1);
  });

  it("should merge configured template kwargs under the record's own before matching", () => {
    const forest = new FakeForest({
      sessionId: "s",
      conversations: [{ messages: main, chat_template_kwargs: { enable_thinking: false, extra: 1 } }],
    });
    const output = {
      kind: "records" as const,
      records: [{ name: "main", messages: main, chat_template_kwargs: { extra: 1 } }],
    };
    expect(planSessionExport({ sessionId: "s", output, forest })).toMatchObject({
      ok: false,
      reason: "unmatched_record",
    });
    expect(
      planSessionExport({
        sessionId: "s",
        output,
        forest,
        defaultTemplateKwargs: { enable_thinking: false },
      }),
    ).toMatchObject({ ok: true });
  });

  it("should make a record that matches nothing non-finalizable, naming the record", () => {
    const forest = new FakeForest({ sessionId: "s3", conversations: [{ messages: main }] });
    const plan = planSessionExport({
      sessionId: "s3",
      output: {
        kind: "records",
        records: [
          { name: "main", messages: main },
          { name: "edited", messages: conversation("Find the capital of France.", "Paris!") },
        ],
      },
      forest,
    });
    expect(plan).toMatchObject({ ok: false, reason: "unmatched_record" });
    if (plan.ok) return;
    expect(plan.message).toContain('records[1] ("edited") matches no committed state');
  });

  it("should reject an observation-only state (no response on the lineage)", () => {
    const forest = new FakeForest({ sessionId: "s", conversations: [{ messages: main }] });
    const plan = planSessionExport({
      sessionId: "s",
      output: { kind: "records", records: [{ name: "prompt", messages: main.slice(0, 1) }] },
      forest,
    });
    expect(plan).toMatchObject({ ok: false, reason: "unmatched_record" });
  });

  it("should reject duplicate record names before matching anything", () => {
    const forest = new FakeForest({
      sessionId: "s",
      conversations: [{ messages: main }, { messages: searcher }],
    });
    const plan = planSessionExport({
      sessionId: "s",
      output: {
        kind: "records",
        records: [
          { name: "main", messages: main },
          { name: "main", messages: searcher },
        ],
      },
      forest,
    });
    expect(plan).toMatchObject({ ok: false, reason: "duplicate_context_name" });
    if (plan.ok) return;
    expect(plan.message).toBe(
      'session s: records[1].name: "main" is already used by records[0]; names must be unique in a session',
    );
    expect(forest.calls).toEqual([]);
  });

  it("should reserve the name null for the implicit context", () => {
    const forest = new FakeForest({ sessionId: "s", conversations: [{ messages: main }] });
    const plan = planSessionExport({
      sessionId: "s",
      output: { kind: "records", records: [{ name: "null", messages: main }] },
      forest,
    });
    expect(plan).toMatchObject({ ok: false, reason: "reserved_context_name" });
  });

  it("should reject two records naming the same committed state", () => {
    const forest = new FakeForest({ sessionId: "s", conversations: [{ messages: main }] });
    const plan = planSessionExport({
      sessionId: "s",
      output: {
        kind: "records",
        records: [
          { name: "a", messages: main },
          { name: "b", messages: main },
        ],
      },
      forest,
    });
    expect(plan).toMatchObject({ ok: false, reason: "duplicate_context_state" });
  });

  it("should report a record that cannot be canonicalised with its field path", () => {
    const forest = new FakeForest({ sessionId: "s", conversations: [{ messages: main }] });
    const plan = planSessionExport({
      sessionId: "s",
      output: { kind: "records", records: [{ name: "main", messages: [{ role: "robot", content: "x" }] }] },
      forest,
    });
    expect(plan).toMatchObject({ ok: false, reason: "invalid_record" });
    if (plan.ok) return;
    expect(plan.message).toMatch(
      /^session s: records\[0\] \("main"\)\.messages\[0\]\.role: unsupported role "robot"/,
    );
  });

  it("should reject an output that does not have the launcher's shape, and an empty record list", () => {
    const forest = new FakeForest({ sessionId: "s", conversations: [{ messages: main }] });
    const bad = planSessionExport({
      sessionId: "s",
      output: { kind: "records", records: [{ name: "", messages: main }] } as never,
      forest,
    });
    expect(bad).toMatchObject({ ok: false, reason: "invalid_output" });
    if (!bad.ok) expect(bad.message).toBe("session s: output.records[0].name: must be a non-empty string");
    expect(
      planSessionExport({ sessionId: "s", output: { kind: "records", records: [] }, forest }),
    ).toMatchObject({
      ok: false,
      reason: "empty_export",
    });
  });

  it("should rethrow errors that are not export-match errors", () => {
    const forest = new FakeForest({ sessionId: "s", conversations: [{ messages: main }] });
    forest.implicitExportLeaf = () => {
      throw new TypeError("forest bug");
    };
    expect(() => planSessionExport({ sessionId: "s", output: null, forest })).toThrow("forest bug");
  });
});
