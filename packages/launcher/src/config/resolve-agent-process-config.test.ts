import { describe, expect, it } from "vitest";
import { resolveAgentProcessConfig } from "./resolve-agent-process-config";

describe("resolveAgentProcessConfig", () => {
  it("should normalise the settings with Relax's defaults", () => {
    expect(
      resolveAgentProcessConfig({
        command: "  bash run_agent_app.sh \n",
        cwd: "/tmp/../tmp",
        env: ["FOO=bar"],
      }),
    ).toEqual({
      command: "bash run_agent_app.sh",
      cwd: "/tmp",
      env: { FOO: "bar" },
      timeoutMs: 1_800_000,
      graceMs: 5_000,
    });
  });

  it("should reject each bad field by name", () => {
    expect(() => resolveAgentProcessConfig({ command: " " })).toThrow(
      "command: the agent command must be a non-empty string",
    );
    expect(() => resolveAgentProcessConfig({ command: "x", cwd: "/no/such/dir" })).toThrow(
      "cwd: /no/such/dir does not exist",
    );
    expect(() => resolveAgentProcessConfig({ command: "x", cwd: "/etc/hostname" })).toThrow(
      "cwd: /etc/hostname is not a directory",
    );
    expect(() => resolveAgentProcessConfig({ command: "x", timeoutMs: -1 })).toThrow(
      "timeoutMs: must be a positive number, got -1",
    );
    expect(() => resolveAgentProcessConfig({ command: "x", timeoutMs: Number.NaN })).toThrow("timeoutMs");
    expect(() => resolveAgentProcessConfig({ command: "x", graceMs: -5 })).toThrow(
      "graceMs: must be a non-negative number",
    );
    expect(() => resolveAgentProcessConfig({ command: "x", env: ["RELAX_BASE_URL=y"] })).toThrow(
      "env[0]: RELAX_BASE_URL",
    );
  });
});
