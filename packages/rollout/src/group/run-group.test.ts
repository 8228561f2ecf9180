import { getEventListeners } from "node:events";
import type { AgentFailureKind } from "@relax/launcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PromptItem } from "../dataset/prompt-dataset";
import {
  createFakeLauncher,
  type FakeAgentContext,
  type FakeAgentResult,
} from "../testing/create-fake-launcher";
import { createTestGroupGateway, type TestGroupGateway } from "../testing/create-test-group-gateway";
import { type GroupResult, runGroup } from "./run-group";

const prompt: PromptItem = {
  index: 3,
  messages: [{ role: "user", content: "What is 2+2?" }],
  metadata: { id: "a" },
};

/** One chat turn with the session's input messages; the answer's status is returned. */
async function oneTurn(context: FakeAgentContext): Promise<number> {
  const response = await context.chat({ model: "m", messages: context.input.messages });
  await response.text();
  return response.status;
}

const succeed =
  (reward: number): ((context: FakeAgentContext) => Promise<FakeAgentResult>) =>
  async (context) => {
    await oneTurn(context);
    return { status: "succeeded", output: { kind: "implicit", reward } };
  };

/** Waits until the controller terminates the session. */
const untilTerminated = (context: FakeAgentContext) =>
  new Promise<FakeAgentResult>((_, reject) =>
    context.signal.addEventListener("abort", () => reject(context.signal.reason)),
  );

describe("runGroup (in process, fake launcher)", () => {
  let gateway: TestGroupGateway;
  beforeAll(async () => {
    gateway = await createTestGroupGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  const run = (
    agent: (context: FakeAgentContext, slot: number) => Promise<FakeAgentResult>,
    options: { signal?: AbortSignal; firstRequestTimeoutMs?: number; failLaunchSlot?: number } = {},
  ) => {
    const launcher = createFakeLauncher({
      fetch: gateway.fetch,
      agent: (context) => agent(context, Number(/\.s(\d+)$/.exec(context.handle.sessionId)![1])),
      ...(options.failLaunchSlot !== undefined
        ? {
            failLaunch: (launch) =>
              launch.sessionLabel?.endsWith(`.s${options.failLaunchSlot}`)
                ? new Error("spawn bash ENOENT")
                : undefined,
          }
        : {}),
    });
    const context = gateway.groupContext({
      launchAgent: launcher.launch,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.firstRequestTimeoutMs !== undefined
        ? { firstRequestTimeoutMs: options.firstRequestTimeoutMs }
        : {}),
    });
    const result = runGroup(context, { groupIndex: 0, prompt, size: 2, mode: "train", rolloutId: 5 });
    return { launcher, result };
  };

  it("should export a Group with exact tokens, GRPO advantages, and close its sessions (404 after)", async () => {
    const calls = gateway.standin.calls.length;
    const { launcher, result: pending } = run((context, slot) => succeed(slot === 0 ? 1 : 0)(context));
    const result = await pending;
    expect(result.kind).toBe("exported");
    if (result.kind !== "exported") return;
    expect(result.groupId).toMatch(/^g5-0-[0-9a-f]{6}$/);
    expect(launcher.launched.map((launch) => [launch.groupId, launch.rolloutMode, launch.baseUrl])).toEqual([
      [result.groupId, "train", "http://gateway.test/agentic_api/"],
      [result.groupId, "train", "http://gateway.test/agentic_api/"],
    ]);
    expect(launcher.launched[0]!.input).toEqual({ messages: prompt.messages, metadata: { id: "a" } });
    const rows = result.export.rows;
    expect(rows.map((row) => [row.reward, row.advantage ?? null])).toEqual([
      [1, expect.closeTo(Math.SQRT1_2, 5)],
      [0, expect.closeTo(-Math.SQRT1_2, 5)],
    ]);
    // The row's prompt is exactly the engine's input_ids; the response is the engine's output, masked 1.
    const generate = gateway.standin.calls.slice(calls).filter((call) => call.path === "/generate");
    expect(generate).toHaveLength(2);
    const promptIds = (generate[0]!.body as { input_ids: number[] }).input_ids;
    expect((generate[1]!.body as { input_ids: number[] }).input_ids).toEqual(promptIds);
    expect(gateway.tokenizer.decode(promptIds, { skipSpecialTokens: false })).toBe(
      "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n",
    );
    for (const row of rows) {
      expect(row.tokens).toEqual([...promptIds, 16141, 220, 16, 13, 151645]);
      expect(row.response_length).toBe(5);
      expect(row.loss_mask).toEqual([1, 1, 1, 1, 1]);
    }
    for (const [slot, session] of result.sessions.entries()) {
      // The id is a non-secret label; the credential is separate: 128 bits (32 hex digits) that appear
      // only in the agent's RELAX_SESSION_ID, never in the label, the rows or the launcher's names.
      expect(session.id).toBe(`${result.groupId}.s${slot}`);
      expect(result.groupId).toMatch(/^g5-0-[0-9a-f]{6}$/);
      expect(session.credential).toMatch(/^[0-9a-f]{32}$/);
      expect(launcher.launched[slot]).toMatchObject({
        sessionId: session.credential,
        sessionLabel: session.id,
      });
      expect(JSON.stringify(rows)).not.toContain(session.credential);
      expect(session.state).toBe("closed");
      expect(gateway.registry.get(session.credential)).toBeUndefined();
      const response = await gateway.fetch(
        new Request(`${"http://gateway.test/agentic_api/"}chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${session.credential}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "late" }] }),
        }),
      );
      expect(response.status).toBe(404);
    }
    expect(launcher.handles.map((handle) => handle.active)).toEqual([true, true]);
  });

  it("should drop the Group when a launch fails, terminating the agents already started", async () => {
    const { launcher, result } = run(untilTerminated, { failLaunchSlot: 1 });
    const dropped = (await result) as Extract<GroupResult, { kind: "dropped" }>;
    expect(dropped).toMatchObject({ kind: "dropped", reason: "agent_launch_failed" });
    expect(dropped.message).toMatch(/^session g5-0-\w+\.s1: spawn bash ENOENT$/);
    expect(dropped.outcomes.map((outcome) => outcome.status)).toEqual(["terminated"]);
    expect(launcher.launched).toHaveLength(2);
  });

  it("should drop the Group when an agent exits before its first request", async () => {
    const { result } = run(async (context, slot) =>
      slot === 0 ? succeed(1)(context) : { status: "succeeded" },
    );
    expect(await result).toMatchObject({ kind: "dropped", reason: "agent_exited_before_first_request" });
  });

  it("should name the refused request when an agent exits after a 400 on its first request", async () => {
    const { result } = run(async (context, slot) => {
      if (slot === 0) return succeed(1)(context);
      const response = await context.chat({ model: "m", messages: [{ role: "robot", content: "hi" }] });
      await response.text();
      return { status: "failed", kind: "exit", message: "exit code 1" };
    });
    const dropped = (await result) as Extract<GroupResult, { kind: "dropped" }>;
    expect(dropped.reason).toBe("request_refused");
    expect(dropped.message).toMatch(
      /^session g5-0-\w+\.s1: request refused: 400 messages\[0\]\.role: unsupported role "robot"; expected "system", "user", "assistant", "tool" or "developer" \(\/agentic_api\/chat\/completions\); the agent then exited \(Agent session \S+ exit code 1\.\)$/,
    );
  });

  it("should drop the Group when a session sends no first request in time", async () => {
    const { result } = run(
      async (context, slot) => (slot === 0 ? succeed(1)(context) : untilTerminated(context)),
      {
        firstRequestTimeoutMs: 100,
      },
    );
    const dropped = (await result) as Extract<GroupResult, { kind: "dropped" }>;
    expect(dropped.reason).toBe("agent_first_request_timeout");
    expect(dropped.message).toMatch(/^no first model request within 0\.1s from g5-0-\w+\.s1$/);
    expect(dropped.outcomes.map((outcome) => outcome.status)).toEqual(["terminated", "terminated"]);
  });

  it.each<[AgentFailureKind, string]>([
    ["timeout", "agent_timeout"],
    ["exit", "agent_exit"],
    ["signal", "agent_signal"],
    ["invalid-output", "agent_invalid-output"],
  ])(
    "should drop the Group when an agent fails with %s after the lease, terminating the others",
    async (kind, reason) => {
      const { launcher, result } = run(async (context, slot) => {
        await oneTurn(context);
        return slot === 0 ? { status: "failed", kind, message: "went wrong" } : untilTerminated(context);
      });
      const dropped = (await result) as Extract<GroupResult, { kind: "dropped" }>;
      expect(dropped).toMatchObject({ kind: "dropped", reason });
      expect(dropped.message).toMatch(/^session g5-0-\w+\.s0: Agent session g5-0-\w+\.s0 went wrong\.$/);
      expect(dropped.outcomes.map((outcome) => outcome.status)).toEqual(["failed", "terminated"]);
      expect(launcher.handles.every((handle) => handle.state === "exited")).toBe(true);
    },
  );

  it("should drop the Group with the export pipeline's reason when a reward is missing", async () => {
    const { result } = run(async (context, slot) => {
      await oneTurn(context);
      return {
        status: "succeeded",
        output: slot === 0 ? { kind: "implicit", reward: 1 } : { kind: "implicit" },
      };
    });
    const dropped = (await result) as Extract<GroupResult, { kind: "dropped" }>;
    expect(dropped).toMatchObject({ kind: "dropped", reason: "missing_reward", export: { kind: "dropped" } });
  });

  it("should end as interrupted when the run's signal aborts, leaving no listener on that signal", async () => {
    const interrupt = new AbortController();
    const seen: number[] = [];
    const { result } = run(
      async (context, slot) => {
        seen.push(getEventListeners(interrupt.signal, "abort").length);
        if (slot === 0) await oneTurn(context);
        return untilTerminated(context);
      },
      { signal: interrupt.signal },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(getEventListeners(interrupt.signal, "abort")).toHaveLength(0);
    interrupt.abort();
    expect(await result).toMatchObject({ kind: "dropped", reason: "interrupted" });
    expect(seen).toEqual([0, 0]);
    expect(getEventListeners(interrupt.signal, "abort")).toHaveLength(0);
  });

  it("should leave no listener on the run's signal after many Groups", async () => {
    const signal = new AbortController().signal;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        runGroup(
          gateway.groupContext({
            signal,
            launchAgent: createFakeLauncher({ fetch: gateway.fetch, agent: succeed(i % 2) }).launch,
          }),
          { groupIndex: i, prompt, size: 2, mode: "train", rolloutId: 0 },
        ),
      ),
    );
    expect(results.map((item) => item.kind)).toEqual(new Array(12).fill("exported"));
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });
});
