import { describe, expect, it } from "vitest";
import { SessionContextLengthError } from "../errors/session-context-length-error";
import { type InternalNode, storeNode } from "../node/forest-node";
import { turnBudget } from "./turn-budget";

/** A node with `tokens` of its own after `prefix` inference and `trainPrefix` training tokens. */
const node = (tokens: number, prefix: number, trainPrefix: number, trainTokens?: number): InternalNode =>
  storeNode({
    kind: "observation",
    tokens: new Int32Array(tokens),
    prefixTokens: prefix,
    prefixTrainTokens: trainPrefix,
    ...(trainTokens !== undefined && { trainTokens: new Int32Array(trainTokens) }),
  } as unknown as Parameters<typeof storeNode>[0]);

describe("turnBudget", () => {
  it("should count the lineage and the new observation, its training view when it has one", () => {
    const base = node(4, 10, 12);
    expect(turnBudget({ base, sessionId: "s" })).toEqual({
      promptTokens: 14,
      trainPromptTokens: 16,
      budget: undefined,
    });
    expect(
      turnBudget({ base, rendered: { tokens: new Int32Array(3) }, maxNewTokens: 50, sessionId: "s" }),
    ).toEqual({ promptTokens: 17, trainPromptTokens: 19, budget: 50 });
    expect(
      turnBudget({
        base,
        rendered: { tokens: new Int32Array(3), trainTokens: new Int32Array(8) },
        sessionId: "s",
      }),
    ).toMatchObject({ promptTokens: 17, trainPromptTokens: 24 });
    // A generated-from observation with images counts its training tokens.
    expect(turnBudget({ base: node(4, 10, 12, 9), sessionId: "s" })).toMatchObject({ trainPromptTokens: 21 });
  });

  it("should clamp the budget to the room left in the context window", () => {
    const base = node(4, 10, 12);
    expect(turnBudget({ base, maxContextTokens: 20, sessionId: "s" }).budget).toBe(4);
    expect(turnBudget({ base, maxContextTokens: 20, maxNewTokens: 3, sessionId: "s" }).budget).toBe(3);
    expect(turnBudget({ base, maxContextTokens: 20, maxNewTokens: 30, sessionId: "s" }).budget).toBe(4);
  });

  it("should throw when the prompt fills the context window", () => {
    let error: unknown;
    try {
      turnBudget({ base: node(4, 10, 12), maxContextTokens: 16, sessionId: "s9" });
    } catch (caught) {
      error = caught;
    }
    expect(SessionContextLengthError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      stage: "observation",
      promptTokens: 16,
      maxContextLength: 16,
      sessionId: "s9",
    });
  });
});
