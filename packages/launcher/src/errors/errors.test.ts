import { describe, expect, it } from "vitest";
import { AgentConfigError } from "./agent-config-error";
import { AgentExecutionError } from "./agent-execution-error";
import { AgentTerminatedError } from "./agent-terminated-error";
import { AgentTimeoutError } from "./agent-timeout-error";
import { LauncherError } from "./launcher-error";
import { ReaperUnavailableError } from "./reaper-unavailable-error";
import { ReservedEnvKeyError } from "./reserved-env-key-error";
import { SessionInputError } from "./session-input-error";
import { SessionOutputError } from "./session-output-error";

describe("launcher errors", () => {
  it("should be recognised by global-symbol markers along their hierarchy", () => {
    const timeout = new AgentTimeoutError({ sessionId: "s", timeoutMs: 1500, activeMs: 1501 });
    expect(AgentTimeoutError.isInstance(timeout)).toBe(true);
    expect(AgentExecutionError.isInstance(timeout)).toBe(true);
    expect(LauncherError.isInstance(timeout)).toBe(true);
    expect(AgentConfigError.isInstance(timeout)).toBe(false);
    expect(timeout.name).toBe("AgentTimeoutError");
    expect(timeout.message).toBe("Agent session s timed out after 1.5s of active time.");
    expect((timeout as unknown as Record<symbol, unknown>)[Symbol.for("relax.error")]).toBe(true);

    const reserved = new ReservedEnvKeyError({ path: "agentEnv[0]", key: "RELAX_X" });
    expect(AgentConfigError.isInstance(reserved)).toBe(true);
    expect(reserved.name).toBe("ReservedEnvKeyError");

    // A structurally identical object from another copy of the package is recognised too.
    const foreign = { [Symbol.for("relax.error.AgentExecutionError")]: true };
    expect(AgentExecutionError.isInstance(foreign)).toBe(true);
    expect(AgentTimeoutError.isInstance(foreign)).toBe(false);
    expect(LauncherError.isInstance(new Error("plain"))).toBe(false);
    expect(LauncherError.isInstance(null)).toBe(false);
  });

  it("should format messages with field paths and keep causes", () => {
    const cause = new Error("root");
    expect(new SessionInputError({ path: "images[0]", message: "bad", cause }).cause).toBe(cause);
    expect(new SessionOutputError({ message: "x" }).message).toBe("invalid session output: x");
    expect(new SessionOutputError({ line: 3, message: "x" }).message).toBe(
      "invalid session output (line 3): x",
    );
    expect(new AgentTerminatedError({ sessionId: "s", reason: "drop" }).message).toBe(
      "Agent session s was terminated: drop",
    );
    expect(new ReaperUnavailableError({ details: "no cc" }).message).toContain("(no cc)");
    const execution = new AgentExecutionError({
      sessionId: "s",
      kind: "exit",
      summary: "exited with code 1",
      logTail: "oops\n",
    });
    expect(execution.message).toBe("Agent session s exited with code 1.\n--- agent log tail ---\noops\n");
  });
});
