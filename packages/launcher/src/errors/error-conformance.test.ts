import { describeErrorContract } from "@relax-tools/error-conformance";
import { expect, it } from "vitest";
import * as launcher from "../index";
import { SpawnFailure } from "./spawn-failure";

describeErrorContract(
  {
    packageName: "@relax/launcher",
    exports: launcher,
    errorNamePattern: /^[A-Z]\w*(Error|Failure)$/,
    cases: [
      { name: "LauncherError", error: new launcher.LauncherError({ name: "LauncherError", message: "m" }) },
      {
        name: "AgentConfigError",
        error: new launcher.AgentConfigError({ path: "agentEnv[0]", message: "bad" }),
        ancestors: ["LauncherError"],
      },
      {
        name: "ReservedEnvKeyError",
        error: new launcher.ReservedEnvKeyError({ path: "agentEnv[0]", key: "RELAX_X" }),
        ancestors: ["LauncherError", "AgentConfigError"],
      },
      {
        name: "AgentExecutionError",
        error: new launcher.AgentExecutionError({ sessionId: "s", kind: "exit", summary: "exited" }),
        ancestors: ["LauncherError"],
      },
      {
        name: "AgentTimeoutError",
        error: new launcher.AgentTimeoutError({ sessionId: "s", timeoutMs: 1, activeMs: 2 }),
        ancestors: ["LauncherError", "AgentExecutionError"],
      },
      {
        name: "AgentTerminatedError",
        error: new launcher.AgentTerminatedError({ sessionId: "s", reason: "drop" }),
        ancestors: ["LauncherError"],
      },
      {
        name: "ReaperUnavailableError",
        error: new launcher.ReaperUnavailableError({ details: "x" }),
        ancestors: ["LauncherError"],
      },
      {
        name: "SessionInputError",
        error: new launcher.SessionInputError({ path: "input", message: "bad" }),
        ancestors: ["LauncherError"],
      },
      {
        name: "SessionOutputError",
        error: new launcher.SessionOutputError({ message: "bad" }),
        ancestors: ["LauncherError"],
      },
    ],
    // Not exported: the launch path turns it into an `AgentExecutionError` of kind `launch`.
    internalCases: [
      {
        name: "SpawnFailure",
        error: new SpawnFailure({ message: "cannot start", errno: 2 }),
        ancestors: ["LauncherError"],
        errorClass: SpawnFailure,
      },
    ],
  },
  () => {
    it("should not carry the old root marker", () => {
      const error = new launcher.AgentConfigError({ path: "x", message: "m" }) as unknown as Record<
        symbol,
        unknown
      >;
      expect(error[Symbol.for("relax.error.RelaxError")]).toBeUndefined();
    });
  },
);
