import { describe, expect, it } from "vitest";
import { exportedContext, okPlan, plannedContext } from "../../test/plan-fixtures";
import type { SessionExportPlan } from "../plan/plan-session-export";
import {
  collectContexts,
  isLastSegment,
  lastSegmentOf,
  multipleContextsDrop,
  nonFinalizableDrop,
} from "./group-contexts";

const failed = (sessionId: string, message: string): SessionExportPlan => ({
  ok: false,
  sessionId,
  reason: "empty_export",
  message,
});

describe("collectContexts", () => {
  it("should list the contexts of ok plans in sampled order with their slot and unset credit", () => {
    const plans = [
      okPlan("a", [plannedContext("main", 1), plannedContext("helper", null)]),
      failed("b", "no records"),
      okPlan("c", [plannedContext(null, 0.5, { segment: { index: 0, count: 1, kind: "compaction" } })]),
    ];
    const contexts = collectContexts(plans, 7);
    expect(contexts.map((c) => [c.sessionId, c.slot, c.name, c.key, c.exportedReward, c.groupIndex])).toEqual(
      [
        ["a", 0, "main", "main", 1, 7],
        ["a", 0, "helper", "helper", null, 7],
        ["c", 2, null, "null", 0.5, 7],
      ],
    );
    expect(contexts[0]).toMatchObject({
      reward: null,
      rewardDetails: {},
      advantage: null,
      stateHash: "hash-main",
    });
    expect("segment" in contexts[0]!).toBe(false);
    expect(contexts[2]!.segment).toEqual({ index: 0, count: 1, kind: "compaction" });
  });
});

describe("nonFinalizableDrop", () => {
  it("should return nothing when every plan is ok", () => {
    expect(nonFinalizableDrop([okPlan("a", [plannedContext(null, 1)])])).toBeUndefined();
  });

  it("should name the first failure, count the others and list them all", () => {
    expect(nonFinalizableDrop([failed("a", "first"), okPlan("b", []), failed("c", "second")])).toEqual({
      reason: "empty_export",
      message: "first (and 1 more non-finalizable session(s))",
      sessions: [
        { sessionId: "a", reason: "empty_export", message: "first" },
        { sessionId: "c", reason: "empty_export", message: "second" },
      ],
    });
    expect(nonFinalizableDrop([failed("a", "only")])?.message).toBe("only");
  });
});

describe("multipleContextsDrop", () => {
  it("should drop a session with two contexts but not the segments of one trajectory", () => {
    const segments = okPlan("a", [
      plannedContext(null, null, { segment: { index: 0, count: 2, kind: "compaction" } }),
      plannedContext(null, 1, { segment: { index: 1, count: 2, kind: "compaction" } }),
    ]);
    expect(multipleContextsDrop([segments])).toBeUndefined();
    expect(
      multipleContextsDrop([segments, okPlan("b", [plannedContext("x", 1), plannedContext("y", 1)])]),
    ).toEqual({
      reason: "multiple_contexts_without_custom_advantage",
      message:
        "session b exported 2 contexts, but no custom advantage function is configured to assign their credit",
    });
  });
});

describe("isLastSegment and lastSegmentOf", () => {
  it("should tell earlier segments from the last and find a session's last segment", () => {
    const first = exportedContext(1, { segment: { index: 0, count: 2, kind: "compaction" } });
    const last = exportedContext(1, { segment: { index: 1, count: 2, kind: "compaction" } });
    const other = exportedContext(0, { segment: { index: 0, count: 1, kind: "compaction" } });
    expect([isLastSegment(first), isLastSegment(last), isLastSegment(exportedContext(0))]).toEqual([
      false,
      true,
      true,
    ]);
    expect(lastSegmentOf([other, first, last], first)).toBe(last);
  });
});
