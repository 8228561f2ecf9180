import { describeErrorContract } from "@relax-tools/error-conformance";
import * as forest from "../index";

describeErrorContract({
  packageName: "@relax/forest",
  exports: forest,
  cases: [
    {
      name: "SessionContextLengthError",
      error: new forest.SessionContextLengthError({
        maxContextLength: 8,
        promptTokens: 8,
        stage: "observation",
        sessionId: "s",
      }),
    },
    {
      name: "ExportMatchError",
      error: new forest.ExportMatchError({ reason: "no_match", message: "m", sessionId: "s" }),
    },
    {
      name: "ForestInputError",
      error: new forest.ForestInputError({ path: "state.messages", reason: "bad" }),
      ancestors: ["FieldError"],
    },
    { name: "NoResponseError", error: new forest.NoResponseError({ stateHash: "h", sessionId: "s" }) },
    { name: "SnapshotError", error: new forest.SnapshotError({ path: "nodes", reason: "bad" }) },
    {
      name: "StateConflictError",
      error: new forest.StateConflictError({ stateHash: "h", existingKind: "a", attemptedKind: "b" }),
    },
    { name: "UnknownStateError", error: new forest.UnknownStateError({ stateHash: "h", sessionId: "s" }) },
  ],
});
