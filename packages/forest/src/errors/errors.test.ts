import { RelaxError } from "@relax/chat";
import { describe, expect, it } from "vitest";
import { ExportMatchError } from "./export-match-error";
import { ForestInputError } from "./forest-input-error";
import { NoResponseError } from "./no-response-error";
import { SessionContextLengthError } from "./session-context-length-error";
import { SnapshotError } from "./snapshot-error";
import { StateConflictError } from "./state-conflict-error";
import { UnknownStateError } from "./unknown-state-error";

describe("forest errors", () => {
  const errors = [
    new SessionContextLengthError({
      maxContextLength: 10,
      promptTokens: 8,
      requestedTokens: 4,
      stage: "generation",
      sessionId: "s",
    }),
    new ExportMatchError({
      reason: "leaf_count",
      message: "implicit export requires one committed leaf, found 0",
      sessionId: "s",
      leafCount: 0,
    }),
    new ForestInputError({ path: "outputIds", reason: "bad" }),
    new NoResponseError({ stateHash: "h", sessionId: "s" }),
    new SnapshotError({ path: "nodes", reason: "bad" }),
    new StateConflictError({ stateHash: "h", existingKind: "observation", attemptedKind: "response" }),
    new UnknownStateError({ stateHash: "h", sessionId: "s" }),
  ];
  const classes = [
    SessionContextLengthError,
    ExportMatchError,
    ForestInputError,
    NoResponseError,
    SnapshotError,
    StateConflictError,
    UnknownStateError,
  ];

  it("should recognise each error by its own marker only, and all as RelaxError", () => {
    errors.forEach((error, i) => {
      classes.forEach((cls, j) => {
        expect(cls.isInstance(error)).toBe(i === j);
      });
      expect(RelaxError.isInstance(error)).toBe(true);
      expect(error.name).toBe(classes[i]!.name);
    });
    expect(
      SessionContextLengthError.isInstance({ [Symbol.for("relax.error.SessionContextLengthError")]: true }),
    ).toBe(true);
    expect(SessionContextLengthError.isInstance(new Error("x"))).toBe(false);
  });

  it("should carry readable messages", () => {
    expect(errors.map((error) => error.message)).toEqual([
      "context length exceeded in session s: 12 tokens (prompt 8 + generated 4) exceed 10",
      "implicit export requires one committed leaf, found 0",
      "outputIds: bad",
      "state h of session s has no committed response on its lineage",
      "snapshot nodes: bad",
      "state h is already committed as observation; cannot commit it as response",
      "state h is not committed in session s",
    ]);
  });
});
