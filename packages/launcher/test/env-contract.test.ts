import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { AgentConfigError, launchAgentSession, ReservedEnvKeyError, runAgentTask } from "../src/index";
import { resolveAgentProcessConfig } from "../src/internal/index";
import { createTestBackend, shellQuote, tempDir } from "./helpers";

const envAgent = fileURLToPath(new URL("./fixtures/env-agent.mjs", import.meta.url));
const agentCommand = `${shellQuote(process.execPath)} ${shellQuote(envAgent)}`;

describe("agent process contract (seen from inside a real agent)", () => {
  it("should inject the seven RELAX_ variables, agentEnv (last wins) and the inherited environment", async () => {
    const { backend } = await createTestBackend({
      extraEnv: { TEST_INHERITED: "from-launcher", TEST_OVERRIDDEN: "launcher", RELAX_SESSION_ID: "stale" },
    });
    const cwd = await tempDir("cwd");
    const logDir = await tempDir("logs");
    const handle = await launchAgentSession({
      sessionId: "sess-env-1",
      sessionLabel: "sess-env-1",
      groupId: "group-7",
      rolloutMode: "eval",
      baseUrl: "http://127.0.0.1:9/agentic_api/v1",
      command: agentCommand,
      cwd,
      agentEnv: ["TEST_A=1", "TEST_B=x=y", "TEST_A=2", "TEST_OVERRIDDEN=agent-env", "TEST_EMPTY="],
      input: { messages: [{ role: "user", content: "hello" }], metadata: { task_id: "t-1" } },
      backend,
      logDir,
      active: true,
    });
    const ioDir = handle.ioDir;
    const outcome = await handle.done;
    expect(outcome.status).toBe("succeeded");
    if (outcome.status !== "succeeded" || outcome.output.kind !== "implicit") throw new Error("unexpected");
    const seen = outcome.output.metadata as {
      env: Record<string, string>;
      input: unknown;
      cwd: string;
      pid: number;
      pgid: number;
      sid: number;
      stdinIsDevNull: boolean;
    };
    expect(seen.env).toEqual({
      RELAX_INPUT_JSON: join(ioDir, "session_input.json"),
      RELAX_OUTPUT_JSON: join(ioDir, "session_output.json"),
      RELAX_SESSION_IO_DIR: ioDir,
      RELAX_BASE_URL: "http://127.0.0.1:9/agentic_api/v1",
      RELAX_SESSION_ID: "sess-env-1",
      RELAX_ROLLOUT_MODE: "eval",
      RELAX_GROUP_ID: "group-7",
      TEST_A: "2",
      TEST_B: "x=y",
      TEST_EMPTY: "",
      TEST_INHERITED: "from-launcher",
      TEST_OVERRIDDEN: "agent-env",
    });
    expect(seen.input).toEqual({
      messages: [{ role: "user", content: "hello" }],
      metadata: { task_id: "t-1" },
    });
    expect(seen.cwd).toBe(cwd);
    expect(seen.stdinIsDevNull).toBe(true);
    // New session and process group led by the agent's bash (pgid = sid = handle.pid), not the launcher's.
    expect(seen.pgid).toBe(handle.pid);
    expect(seen.sid).toBe(handle.pid);
    expect(seen.pgid).not.toBe(Number(readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ")[2]));
    expect(outcome.output.reward).toBe(1);
    expect(outcome).toMatchObject({ exitCode: 0, signal: null, reaped: true, leftoverProcesses: 0 });
    // stdout and stderr both land in the per-session log; the IO directory is gone afterwards.
    expect(handle.logPath).toBe(join(logDir, "sess-env-1.log"));
    expect(readFileSync(handle.logPath, "utf8")).toBe("agent stdout line\nagent stderr line\n");
    expect(existsSync(ioDir)).toBe(false);
  });

  it("should write the input file before the agent starts and keep the IO directory when asked", async () => {
    const { backend } = await createTestBackend();
    const handle = await launchAgentSession({
      sessionId: "sess-keep",
      groupId: "g",
      rolloutMode: "train",
      baseUrl: "http://h/v1",
      command: `cat "$RELAX_INPUT_JSON" > "$RELAX_SESSION_IO_DIR/seen.json"; echo ok`,
      input: { metadata: { only: "metadata" } },
      backend,
      keepIoDir: true,
    });
    const outcome = await handle.done;
    expect(outcome.status).toBe("succeeded");
    expect(await handle.terminate("late")).toBe(outcome); // harmless after exit
    expect(await handle.readOutput()).toEqual({ output: { kind: "implicit" }, warnings: [] });
    expect(readFileSync(join(handle.ioDir, "seen.json"), "utf8")).toBe('{"metadata":{"only":"metadata"}}\n');
    // The default log lies next to the session folder (outside the agent's reach), named by the label.
    expect(readFileSync(`${handle.ioDir}.log`, "utf8")).toBe("ok\n");
    expect(handle.logPath).toBe(`${handle.ioDir}.log`);
    expect(statSync(handle.logPath).mode & 0o777).toBe(0o600);
    expect(statSync(handle.ioDir).mode & 0o777).toBe(0o700);
  });

  it("should reject RELAX_-prefixed agentEnv at configuration time, before any process starts", async () => {
    const { backend, ioDirs } = await createTestBackend();
    const launch = launchAgentSession({
      sessionId: "sess-reserved",
      groupId: "g",
      rolloutMode: "train",
      baseUrl: "http://h/v1",
      command: "touch /should-never-run",
      agentEnv: ["FOO=1", "RELAX_BASE_URL=http://evil"],
      backend,
    });
    const error = await launch.catch((caught: unknown) => caught);
    expect(ReservedEnvKeyError.isInstance(error)).toBe(true);
    expect(AgentConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ key: "RELAX_BASE_URL", path: "agentEnv[1]" });
    expect(await ioDirs()).toEqual([]); // nothing was created
    expect(() => resolveAgentProcessConfig({ command: "x", env: { RELAX_GROUP_ID: "1" } })).toThrow(
      "env.RELAX_GROUP_ID: RELAX_GROUP_ID uses the reserved RELAX_ prefix",
    );
  });

  it("should reject a harness that sets RELAX_ variables, after running onError hooks and cleanup", async () => {
    const { backend, ioDirs } = await createTestBackend();
    const seen: string[] = [];
    const error = await runAgentTask({
      sessionId: "sess-harness-env",
      groupId: "g",
      rolloutMode: "train",
      baseUrl: "http://h/v1",
      harness: { name: "bad", command: () => ({ command: "true", env: { RELAX_SESSION_ID: "spoofed" } }) },
      hooks: [{ onError: (_context, caught) => void seen.push((caught as Error).name) }],
      backend,
    }).catch((caught: unknown) => caught);
    expect(ReservedEnvKeyError.isInstance(error)).toBe(true);
    expect((error as ReservedEnvKeyError).path).toBe("harness.env.RELAX_SESSION_ID");
    expect(seen).toEqual(["ReservedEnvKeyError"]);
    expect(await ioDirs()).toEqual([]);
  });

  it("should reject bad identity and process settings with the field path", async () => {
    const base = {
      sessionId: "s",
      groupId: "g",
      rolloutMode: "train" as const,
      baseUrl: "http://h",
      command: "true",
    };
    await expect(launchAgentSession({ ...base, sessionId: "has space" })).rejects.toThrow(/^sessionId: /);
    await expect(launchAgentSession({ ...base, rolloutMode: "test" as "train" })).rejects.toThrow(
      'rolloutMode: must be "train" or "eval", got "test"',
    );
    await expect(launchAgentSession({ ...base, timeoutMs: 0 })).rejects.toThrow(
      "timeoutMs: must be a positive number",
    );
    await expect(launchAgentSession({ ...base, command: "  " })).rejects.toThrow(
      "command: a non-empty command",
    );
    await expect(launchAgentSession({ ...base, agentEnv: ["NOEQUALS"] })).rejects.toThrow(
      'agentEnv[0]: expected KEY=VALUE, got "NOEQUALS"',
    );
    await expect(
      launchAgentSession({ ...base, input: { messages: [{ content: "no role" }] } as never }),
    ).rejects.toThrow(/^input\.messages\[0\]\.role: /);
  });

  it("should fail a missing cwd as a configuration error and clean up", async () => {
    const { backend, ioDirs } = await createTestBackend();
    const error = await launchAgentSession({
      sessionId: "s-cwd",
      groupId: "g",
      rolloutMode: "train",
      baseUrl: "http://h",
      command: "true",
      cwd: "/definitely/not/here",
      backend,
    }).catch((caught: unknown) => caught);
    expect(AgentConfigError.isInstance(error)).toBe(true);
    expect((error as AgentConfigError).path).toBe("cwd");
    expect(await ioDirs()).toEqual([]);
  });
});
