import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { PromptItem } from "../dataset/prompt-dataset";
import { createFakeLauncher, type FakeAgentContext } from "../testing/create-fake-launcher";
import { createTestGroupGateway, type TestGroupGateway } from "../testing/create-test-group-gateway";
import { type GroupLifeState, type LaunchAgent, runGroup } from "./run-group";

const prompt: PromptItem = {
  index: 0,
  messages: [{ role: "user", content: "Hold me." }],
  metadata: { id: "h" },
};

describe("runGroup held for its lease (prelaunch), with fake timers", () => {
  let gateway: TestGroupGateway;
  beforeAll(async () => {
    gateway = await createTestGroupGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("should hold the first requests past every timeout without starting a budget, then run from the lease", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const events: string[] = [];
    const fake = createFakeLauncher({
      fetch: gateway.fetch,
      agent: async (context: FakeAgentContext) => {
        const response = await context.chat({ model: "m", messages: context.input.messages });
        events.push(`answered ${response.status}`);
        await response.text();
        return { status: "succeeded", output: { kind: "implicit", reward: 1 } };
      },
    });
    // Record when each session's active-time budget starts.
    const launchAgent: LaunchAgent = async (options) => {
      const handle = await fake.launch(options);
      const activate = handle.activate.bind(handle);
      handle.activate = () => {
        events.push("budget started");
        activate();
      };
      return handle;
    };
    let grant!: () => void;
    const lease = new Promise<void>((resolve) => {
      grant = resolve;
    });
    const states: GroupLifeState[] = [];
    const result = runGroup(
      gateway.groupContext({ launchAgent, agentTimeoutMs: 10_000, firstRequestTimeoutMs: 1_000 }),
      {
        groupIndex: 0,
        prompt,
        size: 2,
        mode: "train",
        rolloutId: 0,
        control: { lease, onState: (state) => states.push(state) },
      },
    );
    await vi.waitFor(() => expect(states).toEqual(["preparing", "held"]), { interval: 1 });
    // An hour passes: far beyond --agent-first-request-timeout and --agent-timeout. Nothing fires.
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(states).toEqual(["preparing", "held"]);
    expect(fake.handles.map((handle) => handle.active)).toEqual([false, false]);
    expect(events).toEqual([]);
    for (const launched of fake.launched) {
      const session = gateway.registry.get(launched.sessionId)!;
      expect([session.state, session.requests, session.generating]).toEqual(["prepare", 1, 0]);
    }

    vi.useRealTimers();
    events.push("lease");
    grant();
    const done = await result;
    expect(done.kind).toBe("exported");
    expect(states).toEqual(["preparing", "held", "running", "exited"]);
    // Budgets start at the lease, before any held request is answered.
    expect(events.slice(0, 3)).toEqual(["lease", "budget started", "budget started"]);
    expect(events.slice(3).sort()).toEqual(["answered 200", "answered 200"]);
  });
});
