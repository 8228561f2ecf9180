import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AgentExecutionError,
  type AgentHarness,
  type LifecycleHooks,
  LocalProcessBackend,
  launchAgentSession,
  runAgentTask,
  SessionOutputError,
} from "../src/index";
import { parseSessionOutput } from "../src/internal/index";
import { createTestBackend, tempDir } from "./helpers";

const identity = (sessionId: string) => ({
  sessionId,
  sessionLabel: sessionId,
  groupId: "g",
  rolloutMode: "train" as const,
  baseUrl: "http://h/v1",
});

/** Hooks that record every call in `events`. */
function recordingHooks(events: string[], names: string[]): LifecycleHooks[] {
  return names.map((name) => ({
    name,
    beforeRun: () => void events.push(`${name}.beforeRun`),
    afterRun: (_context, outcome) => void events.push(`${name}.afterRun:${outcome.status}`),
    onError: (_context, error) =>
      void events.push(
        `${name}.onError:${AgentExecutionError.isInstance(error) ? error.kind : (error as Error).message}`,
      ),
  }));
}

/** A harness that writes a config file in `prepare`, runs a command reading it, and records its calls. */
function configHarness(events: string[], command: string): AgentHarness {
  return {
    name: "config-harness",
    async prepare(context) {
      events.push("prepare");
      await context.sandbox.writeFile(join(context.paths.ioDir, "agent", "config.json"), `{"model":"m"}`);
    },
    command(context) {
      events.push("command");
      return { command, env: { AGENT_CONFIG: join(context.paths.ioDir, "agent", "config.json") } };
    },
    cleanup(context) {
      events.push(`cleanup:ioDir=${existsSync(context.paths.ioDir)}`);
    },
  };
}

describe("harness × sandbox runner with lifecycle hooks", () => {
  it("should run prepare → beforeRun (in order) → command → afterRun (in order) → cleanup, then remove the IO dir", async () => {
    const { backend, ioDirs } = await createTestBackend();
    const events: string[] = [];
    const harness: AgentHarness = {
      ...configHarness(events, `cat "$AGENT_CONFIG" > "$RELAX_OUTPUT_JSON"`),
      async parseResult(context) {
        events.push("parseResult");
        const bytes = await context.sandbox.readFile(context.paths.outputJson);
        const config = JSON.parse(new TextDecoder().decode(bytes!)) as Record<string, unknown>;
        return parseSessionOutput(JSON.stringify({ metadata: { config }, reward: 0.5 }));
      },
    };
    const outcome = await runAgentTask({
      ...identity("sess-hooks"),
      harness,
      hooks: recordingHooks(events, ["a", "b"]),
      backend,
    });
    expect(events).toEqual([
      "prepare",
      "a.beforeRun",
      "b.beforeRun",
      "command",
      "parseResult",
      "a.afterRun:succeeded",
      "b.afterRun:succeeded",
      "cleanup:ioDir=true",
    ]);
    expect(outcome).toMatchObject({
      status: "succeeded",
      output: { kind: "implicit", metadata: { config: { model: "m" } }, reward: 0.5 },
    });
    expect(await ioDirs()).toEqual([]);
  });

  it("should run onError hooks in order and cleanup when the agent fails", async () => {
    const { backend, ioDirs } = await createTestBackend();
    const events: string[] = [];
    const outcome = await runAgentTask({
      ...identity("sess-fail"),
      harness: configHarness(events, "echo boom >&2; exit 2"),
      hooks: recordingHooks(events, ["a", "b"]),
      backend,
    });
    expect(events).toEqual([
      "prepare",
      "a.beforeRun",
      "b.beforeRun",
      "command",
      "a.onError:exit",
      "b.onError:exit",
      "cleanup:ioDir=true",
    ]);
    expect(outcome.status).toBe("failed");
    if (outcome.status === "failed") expect(outcome.error).toMatchObject({ exitCode: 2, logTail: "boom\n" });
    expect(await ioDirs()).toEqual([]);
  });

  it("should abort the launch when a beforeRun hook throws, without starting the agent", async () => {
    const { backend, ioDirs } = await createTestBackend();
    const marker = join(await tempDir("never"), "started");
    const events: string[] = [];
    const hooks: LifecycleHooks[] = [
      ...recordingHooks(events, ["a"]),
      { name: "gate", beforeRun: () => Promise.reject(new Error("sandbox not ready")) },
      ...recordingHooks(events, ["c"]),
    ];
    const launch = launchAgentSession({
      ...identity("sess-gate"),
      command: `touch ${marker}`,
      hooks,
      backend,
    });
    await expect(launch).rejects.toThrow("sandbox not ready");
    expect(events).toEqual(["a.beforeRun", "a.onError:sandbox not ready", "c.onError:sandbox not ready"]);
    expect(existsSync(marker)).toBe(false);
    expect(await ioDirs()).toEqual([]);
  });

  it("should turn a throwing afterRun hook into a rejected done (infrastructure error) after onError and cleanup", async () => {
    const { backend, ioDirs } = await createTestBackend();
    const events: string[] = [];
    const hooks: LifecycleHooks[] = [
      { name: "upload", afterRun: () => Promise.reject(new Error("upload failed")) },
      ...recordingHooks(events, ["b"]),
    ];
    const handle = await launchAgentSession({ ...identity("sess-after"), command: "true", hooks, backend });
    await expect(handle.done).rejects.toThrow("upload failed");
    expect(events).toEqual(["b.beforeRun", "b.onError:upload failed"]);
    expect(await ioDirs()).toEqual([]);
  });

  it("should report a throwing onError hook as a warning without hiding the agent failure", async () => {
    const { backend } = await createTestBackend();
    const events: string[] = [];
    const warnings: string[] = [];
    const outcome = await runAgentTask({
      ...identity("sess-onerror"),
      command: "exit 1",
      hooks: [
        { name: "flaky", onError: () => Promise.reject(new Error("metrics down")) },
        ...recordingHooks(events, ["b"]),
      ],
      backend,
      onWarning: (message) => warnings.push(message),
    });
    expect(outcome.status).toBe("failed");
    expect(events).toEqual(["b.beforeRun", "b.onError:exit"]);
    expect(warnings).toEqual(["@relax/launcher: onError hook flaky failed for session sess-onerror"]);
  });

  it("should fail with invalid-output when RELAX_OUTPUT_JSON breaks the contract", async () => {
    const { backend } = await createTestBackend();
    const outcome = await runAgentTask({
      ...identity("sess-bad-output"),
      command: `printf '%s\\n' '{"name":"main","messages":[{"role":"user","content":"x"}]}' '{"name":"","messages":[]}' > "$RELAX_OUTPUT_JSON"`,
      backend,
    });
    expect(outcome.status).toBe("failed");
    if (outcome.status !== "failed") return;
    expect(outcome.error.kind).toBe("invalid-output");
    expect(SessionOutputError.isInstance(outcome.error.cause)).toBe(true);
    expect(outcome.error.cause).toMatchObject({ line: 2, path: "name" });
    expect(outcome.error.message).toBe(
      "Agent session sess-bad-output produced invalid output: invalid session output (line 2, field name): must be a non-empty string.",
    );
  });

  it("should fail the launch with AgentExecutionError when the shell cannot be executed", async () => {
    const { ioDirs, ioRoot } = await createTestBackend();
    const backend = new LocalProcessBackend({ ioRoot, shell: "/nonexistent/bash" });
    const error = await launchAgentSession({ ...identity("sess-noexec"), command: "true", backend }).catch(
      (caught: unknown) => caught,
    );
    expect(AgentExecutionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: "launch" });
    expect((error as Error).message).toContain("relax-reaper could not exec /nonexistent/bash: ENOENT");
    expect(await ioDirs()).toEqual([]);
  });
});
