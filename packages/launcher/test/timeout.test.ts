import { describe, expect, it } from "vitest";
import { AgentExecutionError, AgentTimeoutError, launchAgentSession } from "../src/index";
import { createTestBackend } from "./helpers";

const identity = (sessionId: string) => ({
  sessionId,
  sessionLabel: sessionId,
  groupId: "g",
  rolloutMode: "train" as const,
  baseUrl: "http://h/v1",
});
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe("active-time timeout", () => {
  it("should not consume the budget while the session waits before activation (prelaunch)", async () => {
    const { backend } = await createTestBackend();
    const handle = await launchAgentSession({
      ...identity("sess-prelaunch"),
      command: "sleep 0.6; echo finished",
      timeoutMs: 100,
      backend,
    });
    expect(handle.active).toBe(false);
    const outcome = await handle.done;
    expect(outcome.status).toBe("succeeded");
    expect(outcome.activeMs).toBe(0);
    expect(outcome.durationMs).toBeGreaterThan(100);
  });

  it("should stop counting while paused and expire after resume with AgentTimeoutError", async () => {
    const { backend } = await createTestBackend();
    const handle = await launchAgentSession({
      ...identity("sess-timeout"),
      command: "echo working; exec sleep 1000",
      timeoutMs: 400,
      graceMs: 200,
      backend,
    });
    handle.activate();
    await sleep(50);
    handle.pause();
    const consumed = handle.activeMs;
    expect(consumed).toBeGreaterThan(0);
    await sleep(800); // twice the budget, while held (partial rollout)
    expect(handle.state).toBe("running");
    expect(handle.activeMs).toBe(consumed);
    expect(handle.remainingMs).toBe(400 - consumed);
    handle.resume();
    const outcome = await handle.done;
    expect(outcome.status).toBe("failed");
    if (outcome.status !== "failed") return;
    expect(AgentTimeoutError.isInstance(outcome.error)).toBe(true);
    expect(AgentExecutionError.isInstance(outcome.error)).toBe(true);
    const error = outcome.error as AgentTimeoutError;
    expect(error).toMatchObject({ kind: "timeout", timeoutMs: 400, signal: "SIGTERM", logTail: "working\n" });
    expect(error.activeMs).toBeGreaterThanOrEqual(400);
    expect(outcome.durationMs).toBeGreaterThan(800);
    expect(error.message).toBe(
      "Agent session sess-timeout timed out after 0.4s of active time.\n--- agent log tail ---\nworking\n",
    );
    await expect(handle.readOutput()).rejects.toBe(error);
  });

  it("should still end a timed-out agent that ignores SIGTERM", async () => {
    const { backend } = await createTestBackend();
    const handle = await launchAgentSession({
      ...identity("sess-timeout-stubborn"),
      command: 'trap "" TERM; exec sleep 1000',
      timeoutMs: 100,
      graceMs: 100,
      backend,
      active: true,
    });
    const outcome = await handle.done;
    expect(outcome.status).toBe("failed");
    if (outcome.status !== "failed") return;
    expect(outcome.error).toMatchObject({ kind: "timeout", signal: "SIGKILL", exitCode: null });
  });
});
