import { describe, expect, it } from "vitest";
import {
  internalErrorResult,
  isBackendDrop,
  isDiscardedGroup,
  isDroppedGroup,
  isInterruptedGroup,
  isOverSampledGroup,
  isShardDrop,
  overSampledResult,
} from "./group-outcome";
import type { GroupResult } from "./run-group";

const prompt = { index: 3 } as GroupResult["prompt"];
const drop = (reason: string): GroupResult => ({
  kind: "dropped",
  groupId: `g-${reason}`,
  prompt,
  reason,
  message: reason,
  sessions: [],
  outcomes: [],
});
const exported = {
  kind: "exported",
  groupId: "g-0",
  prompt,
  export: { kind: "exported", groupIndex: 0, rows: [] },
  sessions: [],
  outcomes: [],
} as unknown as Extract<GroupResult, { kind: "exported" }>;

describe("group outcomes", () => {
  const reasons = ["agent_exit", "shard_failed", "backend_agent_exit", "interrupted", "over_sampled"];
  const table = (predicate: (result: GroupResult) => boolean) => [
    predicate(exported),
    ...reasons.map((reason) => predicate(drop(reason))),
  ];

  it("should tell drops, interruptions, over-sampled surplus and backend or shard drops apart", () => {
    // exported, agent_exit, shard_failed, backend_agent_exit, interrupted, over_sampled
    expect(table(isDroppedGroup)).toEqual([false, true, true, true, false, false]);
    expect(table(isInterruptedGroup)).toEqual([false, false, false, false, true, false]);
    expect(table(isOverSampledGroup)).toEqual([false, false, false, false, false, true]);
    expect(table(isDiscardedGroup)).toEqual([false, true, true, true, false, true]);
    expect(table(isBackendDrop)).toEqual([false, false, false, true, false, false]);
    expect(table(isShardDrop)).toEqual([false, false, true, false, false, false]);
  });

  it("should make an over-sampled Group from an exported one (export kept) and an internal error from a throw", () => {
    const surplus = overSampledResult(exported);
    expect(surplus).toMatchObject({ kind: "dropped", reason: "over_sampled", export: exported.export });
    expect(isOverSampledGroup(surplus) && !isDroppedGroup(surplus)).toBe(true);
    const error = internalErrorResult("g1-2", prompt, new Error("boom"));
    expect(error).toMatchObject({
      kind: "dropped",
      groupId: "g1-2",
      reason: "internal_error",
      message: "boom",
    });
    expect(isDroppedGroup(error)).toBe(true);
  });
});
