import { describe, expect, it } from "vitest";
import { exportedContext } from "../../test/plan-fixtures";
import { droppedOutcome, messageOf } from "./group-drop";

describe("droppedOutcome", () => {
  it("should prefix the message with the Group and reason and keep the contexts by reference", () => {
    const contexts = [exportedContext(0)];
    const cause = new Error("boom");
    const outcome = droppedOutcome({
      groupIndex: 3,
      mode: "eval",
      contexts,
      drop: { reason: "invalid_reward", message: "bad reward", cause },
    });
    expect(outcome).toEqual({
      kind: "dropped",
      groupIndex: 3,
      mode: "eval",
      reason: "invalid_reward",
      message: "group 3 dropped (invalid_reward): bad reward",
      sessions: [],
      contexts,
      cause,
    });
    expect(outcome.contexts).toBe(contexts);
  });

  it("should leave cause out when there is none and keep the given sessions", () => {
    const sessions = [{ sessionId: "s0", reason: "empty_export" as const, message: "no records" }];
    const outcome = droppedOutcome({
      groupIndex: 0,
      mode: "train",
      contexts: [],
      drop: { reason: "empty_export", message: "no records", sessions },
    });
    expect("cause" in outcome).toBe(false);
    expect(outcome.kind === "dropped" && outcome.sessions).toEqual(sessions);
  });
});

describe("messageOf", () => {
  it("should name an Error's class and stringify anything else", () => {
    expect(messageOf(new RangeError("too far"))).toBe("RangeError: too far");
    expect(messageOf("plain")).toBe("plain");
    expect(messageOf(42)).toBe("42");
  });
});
