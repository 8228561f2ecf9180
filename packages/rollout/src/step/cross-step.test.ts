import { Writable } from "node:stream";
import type { TextTokenizer } from "@relax/chat";
import { buildDebugDump, type TrainingRow, trainingRowSchema } from "@relax/export";
import type { StandinPolicy } from "@relax/standin";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PromptItem } from "../dataset/prompt-dataset";
import { createLogger } from "../report/create-logger";
import { RunReporter } from "../report/run-reporter";
import {
  createFakeLauncher,
  type FakeAgentContext,
  type FakeLauncher,
} from "../testing/create-fake-launcher";
import { createTestGroupGateway, type TestGroupGateway } from "../testing/create-test-group-gateway";
import type { CrossStepOptions } from "./controller-options";
import { RolloutController } from "./rollout-controller";

/** Prompts by id; the stand-in's reply (not a model) is chosen by the prompt text. */
const prompt = (index: number, id: string): PromptItem => ({
  index,
  messages: [{ role: "user", content: id }],
  metadata: { id },
});

const REPLIES: Record<string, string> = {
  slow: "Slow answer: one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty twenty-one twenty-two twenty-three twenty-four.",
  fast: "Ok.",
  tool: "Calling the tool.",
};

/**
 * A stand-in policy that continues a partial output: when the prompt already ends inside the assistant
 * turn (lineage ids ++ partial ids, after a pause), it emits only the rest of the reply, so a continued
 * turn yields exactly the ids of an uninterrupted one (no token lost, none generated twice).
 */
function continuingPolicy(tokenizer: TextTokenizer): StandinPolicy {
  const header = tokenizer.encode("<|im_start|>assistant\n");
  const userHeader = tokenizer.encode("<|im_start|>user\n");
  return ({ inputIds }) => {
    const at = lastIndexOf(inputIds, header);
    const userAt = lastIndexOf(inputIds, userHeader);
    const end = inputIds.indexOf(tokenizer.stopTokenIds[0]!, userAt);
    const user = tokenizer.decode(inputIds.slice(userAt + userHeader.length, end));
    const reply = tokenizer.encode(REPLIES[user] ?? "Again.");
    const partial = inputIds.slice(at + header.length);
    if (partial.some((id, i) => reply[i] !== id)) throw new Error("the partial is not a prefix of the reply");
    return { tokenIds: reply.slice(partial.length) };
  };
}

function lastIndexOf(ids: readonly number[], needle: readonly number[]): number {
  for (let at = ids.length - needle.length; at >= 0; at--) {
    if (needle.every((id, i) => ids[at + i] === id)) return at;
  }
  return -1;
}

interface GenerateCall {
  rid: string;
  input_ids: number[];
}

describe("RolloutController across steps (fake launcher, stand-in engine)", () => {
  const gateways: TestGroupGateway[] = [];
  afterEach(async () => {
    for (const gateway of gateways.splice(0)) await gateway.close();
  });

  async function setup(options: {
    crossStep: CrossStepOptions;
    agent: (context: FakeAgentContext, gateway: TestGroupGateway) => Promise<void>;
    tokenLatencyMs?: number;
    gate?: boolean;
    maxAbortedCount?: number;
  }) {
    let controller: RolloutController | undefined;
    const gateway = await createTestGroupGateway({
      export: { nSamplesPerPrompt: 1 },
      tokenLatencyMs: options.tokenLatencyMs ?? 0,
      gate: options.gate ?? false,
      maxResponseLen: 128,
      turns: {
        currentStep: () => controller?.currentStep,
        ...(options.maxAbortedCount !== undefined ? { maxAbortedCount: options.maxAbortedCount } : {}),
      },
      policyFor: continuingPolicy,
    });
    gateways.push(gateway);
    const lines: string[] = [];
    const destination = new Writable({
      write: (chunk, _encoding, callback) => {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line).msg);
        callback();
      },
    });
    const launcher: FakeLauncher = createFakeLauncher({
      fetch: gateway.fetch,
      agent: async (context) => {
        await options.agent(context, gateway);
        return { status: "succeeded", output: { kind: "implicit", reward: 1 } };
      },
    });
    controller = new RolloutController({
      group: gateway.groupContext({ launchAgent: launcher.launch }),
      logger: createLogger({ level: "info", format: "json", destination }),
      reporter: new RunReporter({ progress: false }),
      decode: (ids) => gateway.tokenizer.decode(ids),
      logPassrate: false,
      crossStep: { closeCheckIntervalMs: 5, ...options.crossStep },
    });
    const accounting = (event: "accounting_start" | "accounting_end") =>
      lines.filter((line) => line.includes(`event=${event}`)).map((line) => line.replace(/ wall_s=\S+/, ""));
    const generateCalls = () =>
      gateway.standin.calls
        .filter((call) => call.path === "/generate")
        .map((call) => call.body as GenerateCall);
    const handleOf = (promptId: string) =>
      launcher.handles[
        launcher.launched.findIndex(
          (item) => (item.input?.metadata as { id?: string } | undefined)?.id === promptId,
        )
      ]!;
    return { gateway, controller, launcher, accounting, generateCalls, handleOf };
  }

  /** One model turn: the agent sends its prompt and reads the answer. */
  const oneTurn = async (context: FakeAgentContext) => {
    const response = await context.chat({ model: "m", messages: context.input.messages });
    expect(response.status).toBe(200);
    await response.json();
  };

  /** Token invariants of every row: tokens = prompt + response, mask on generated ids, logprobs aligned. */
  const expectTokenInvariants = (rows: readonly TrainingRow[]) => {
    for (const row of rows) {
      expect(trainingRowSchema.safeParse(row).success).toBe(true);
      expect(row.tokens).toHaveLength(row.prompt_length + row.response_length);
      expect(row.loss_mask).toHaveLength(row.response_length);
      expect(row.rollout_log_probs).toHaveLength(row.response_length);
    }
  };

  it("should hold a prelaunched Group's first request until the next step leases it, with no agent time spent", async () => {
    const { gateway, controller, launcher, accounting, generateCalls, handleOf } = await setup({
      crossStep: { prelaunch: true },
      agent: oneTurn,
    });
    const prompts = [prompt(0, "fast"), prompt(1, "slow")];
    const step0 = await controller.runStep({
      rolloutId: 0,
      prompts,
      groupsPerStep: 1,
      groupSize: 1,
      concurrency: 2,
      mode: "train",
      nextStepFollows: true,
    });
    expect(step0.rows.map((row) => row.prompt_index)).toEqual([0]);
    // The next step's Group started in the free slot; its first request is committed and held.
    const held = gateway.registry.get(launcher.launched[1]!.sessionId)!;
    await vi.waitFor(() => expect(held.requests).toBe(1));
    expect(held.state).toBe("prepare");
    expect(handleOf("slow").active).toBe(false);
    expect(generateCalls()).toHaveLength(1);
    expect(controller.residentGroups).toBe(1);

    const step1 = await controller.runStep({
      rolloutId: 1,
      prompts,
      groupsPerStep: 1,
      groupSize: 1,
      concurrency: 2,
      mode: "train",
      nextStepFollows: false,
    });
    expect(step1.rows.map((row) => [row.prompt_index, row.steps_lived, row.weight_version_lag])).toEqual([
      [1, [0, 1], 0],
    ]);
    expect(launcher.launched).toHaveLength(2);
    expect(generateCalls()).toHaveLength(2);
    expectTokenInvariants([...step0.rows, ...step1.rows]);
    expect(accounting("accounting_start")).toEqual([
      "AGENTIC ROLLOUT event=accounting_start rollout=0 mode=train sessions=1 groups=1 queued_groups=0 resident_groups=0",
      "AGENTIC ROLLOUT event=accounting_start rollout=1 mode=train sessions=1 groups=1 queued_groups=0 resident_groups=1",
    ]);
  });

  it("should abort and keep a generation at a partial-rollout step close, resume it next step, then protect it", async () => {
    const { gateway, controller, accounting, generateCalls, handleOf } = await setup({
      crossStep: { partialRollout: true },
      gate: true,
      tokenLatencyMs: 15,
      maxAbortedCount: 1,
      agent: async (context, gw) => {
        // A fast Group waits until the slow one is generating, so the close always finds it mid-generation.
        if ((context.input.metadata as { id: string }).id === "fast") {
          await vi.waitFor(() =>
            expect(gw.standin.calls.some((call) => call.path === "/generate")).toBe(true),
          );
        }
        await oneTurn(context);
      },
    });
    const gate = gateway.gate!;
    const prompts = [prompt(0, "slow"), prompt(1, "fast"), prompt(2, "fast"), prompt(3, "fast")];
    const step = (rolloutId: number, overSampling: number) =>
      controller.runStep({
        rolloutId,
        prompts,
        groupsPerStep: 1,
        overSampling,
        groupSize: 1,
        concurrency: 2,
        mode: "train",
      });

    const step0 = await step(0, 2);
    expect(step0.rows.map((row) => row.prompt_index)).toEqual([1]);
    // Closed by pausing: the slow turn's generation was aborted with its partial output kept, its HTTP
    // request is held open and its agent's budget is paused.
    expect(gate.state).toBe("paused");
    expect(gate.counts()).toMatchObject({ generating: 0, abortedPartials: 1, bypassing: 0 });
    expect(handleOf("slow").active).toBe(false);
    expect(controller.residentGroups).toBe(1);
    expect(accounting("accounting_end")[0]).toBe(
      "AGENTIC ROLLOUT event=accounting_end rollout=0 mode=train groups=1 rows=1 dropped_groups=0 debt=0 resident_groups=1 queued_groups=0 interrupted_groups=1",
    );

    // Step 1 reopens the gate: the slow session reached the abort threshold, so it continues protected
    // (a protected rid no prefix abort matches) and the next close does not abort it.
    const step1 = await step(1, 2);
    expect(step1.rows.map((row) => row.prompt_index)).toEqual([2]);
    expect(gate.state).toBe("paused");
    const slowCalls = () =>
      generateCalls().filter((call) => gateway.tokenizer.decode(call.input_ids).includes("user\nslow"));
    await vi.waitFor(() => expect(slowCalls()).toHaveLength(2));
    const [first, second] = slowCalls();
    expect(gate.isProtectedRid(first!.rid)).toBe(false);
    expect(gate.isProtectedRid(second!.rid)).toBe(true);
    // The continuation sends the turn's prompt followed by the partial output.
    expect(second!.input_ids.slice(0, first!.input_ids.length)).toEqual(first!.input_ids);
    expect(second!.input_ids.length).toBeGreaterThan(first!.input_ids.length);

    const step2 = await step(2, 1);
    const [row] = step2.rows;
    expect(row).toMatchObject({
      prompt_index: 0,
      abort_count: 1,
      request_kinds: ["protected"],
      steps_lived: [0, 1, 2],
      weight_version_lag: 2,
    });
    // No token lost or duplicated across the abort: the response is exactly the uninterrupted reply.
    const reply = gateway.tokenizer.encode(REPLIES.slow!);
    const response = row!.tokens.slice(row!.prompt_length);
    expect(response.slice(0, reply.length)).toEqual(reply);
    expect(response.slice(reply.length)).toEqual([gateway.tokenizer.stopTokenIds[0]]);
    expect(row!.loss_mask.every((mask) => mask === 1)).toBe(true);
    expectTokenInvariants([...step0.rows, ...step1.rows, ...step2.rows]);
    // The debug dump shows the same: request kinds per turn, aborts, steps lived, off-policy distance.
    const dump = buildDebugDump({
      rolloutStep: 2,
      outcomes: step2.groups.flatMap((group) => (group.export ? [group.export] : [])),
      decode: (ids) => gateway.tokenizer.decode(ids),
    });
    expect(dump.groups[0]!.samples[0]).toMatchObject({
      abort_count: 1,
      request_kinds: ["protected"],
      steps_lived: [0, 1, 2],
      weight_version_lag: 2,
    });
    expect(dump.groups[0]!.samples[0]!.turns[0]!.metadata).toMatchObject({
      requestKind: "protected",
      rolloutStep: 0,
      abortCount: 1,
    });
    await controller.interruptAll();
    expect(gate.state).toBe("open");
  });

  it("should run a prelaunched Group at once under fully async (no hold), so a step closes on it while its own Group sits in a tool call, and refill the freed slot between steps", async () => {
    let releaseTool: (() => void) | undefined;
    const toolReleased = new Promise<void>((resolve) => {
      releaseTool = resolve;
    });
    const { controller, launcher, generateCalls } = await setup({
      crossStep: { fullyAsync: true, prelaunch: true },
      agent: async (context) => {
        await oneTurn(context);
        if ((context.input.metadata as { id: string }).id === "tool") await toolReleased;
      },
    });
    const prompts = [prompt(0, "tool"), prompt(1, "fast")];
    const step = (rolloutId: number, nextStepFollows: boolean) =>
      controller.runStep({
        rolloutId,
        prompts,
        groupsPerStep: 1,
        groupSize: 1,
        concurrency: 2,
        mode: "train",
        nextStepFollows,
      });
    try {
      // Step 0's own Group (tool) answers once, then sits in its tool call; the Group prelaunched into the
      // free slot generates now (held, it would idle that slot until step 1) and, finished first, fills
      // step 0's batch: two Groups generated while step 0 was open, not one.
      let closed0 = false;
      const running0 = step(0, true).then((result) => {
        closed0 = true;
        return result;
      });
      await vi.waitFor(() => expect(closed0).toBe(true), { timeout: 3000 });
      const step0 = await running0;
      expect(launcher.launched).toHaveLength(3);
      expect(step0.rows.map((row) => [row.prompt_index, row.partition, row.steps_lived])).toEqual([
        [1, 0, [0]],
      ]);
      expect(step0).toMatchObject({ debt: 0, residentGroups: 1, queuedGroups: 0 });
      expect(controller.prelaunched).toEqual({ groups: 0, sessions: 0 });
      // Between the steps the slot the fast Group freed is refilled at once with a Group for step 1
      // (prompt 0 again, dataset cycled; not held, it runs its first turn now and sits in its tool call).
      await vi.waitFor(() => expect(generateCalls()).toHaveLength(3));
      expect(controller.residentGroups).toBe(2);
      // Both finish between the steps; step 1 takes the oldest, the other stays queued.
      releaseTool?.();
      await vi.waitFor(() => expect(controller.queuedGroups).toBe(2));
      const step1 = await step(1, false);
      expect(
        step1.rows.map((row) => [row.prompt_index, row.partition, row.steps_lived, row.weight_version_lag]),
      ).toEqual([[0, 1, [0, 1], 1]]);
      expect(step1).toMatchObject({ debt: 0, residentGroups: 0, queuedGroups: 1 });
      expect(launcher.launched).toHaveLength(3);
      expectTokenInvariants([...step0.rows, ...step1.rows]);
    } finally {
      releaseTool?.();
      await controller.interruptAll();
    }
  });

  it("should close every fully-async step on exactly its batch, queue finished surplus for the next step and keep unfinished Groups resident", async () => {
    const releases = new Map<string, () => void>();
    const { controller, launcher, accounting } = await setup({
      crossStep: { fullyAsync: true },
      agent: async (context) => {
        await oneTurn(context);
        // A tool Group sits in a tool call (no request at the engine) until the test releases it.
        const { id } = context.input.metadata as { id: string };
        if (id.startsWith("tool")) await new Promise<void>((resolve) => releases.set(id, resolve));
      },
    });
    const prompts = [prompt(0, "tool-a"), prompt(1, "fast"), prompt(2, "tool-b")];
    const step = (rolloutId: number) =>
      controller.runStep({
        rolloutId,
        prompts,
        groupsPerStep: 2,
        overSampling: 3,
        groupSize: 1,
        concurrency: 3,
        mode: "train",
      });
    // Step 0 needs 2 Groups: the fast one exports, both tool Groups sit in their tool call. The step does
    // not close on its interrupted debt (docs/contract.md#deviations): it waits.
    let closed0 = false;
    const running0 = step(0).then((result) => {
      closed0 = true;
      return result;
    });
    await vi.waitFor(() => expect(releases.size).toBe(2));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(closed0).toBe(false);
    expect(controller.debt).toBe(1);
    releases.get("tool-a")!();
    const step0 = await running0;
    expect(step0.rows.map((row) => [row.prompt_index, row.partition, row.steps_lived])).toEqual([
      [0, 0, [0]],
      [1, 0, [0]],
    ]);
    expect(step0).toMatchObject({ debt: 0, residentGroups: 1, queuedGroups: 0 });
    expect(accounting("accounting_end")).toEqual([
      "AGENTIC ROLLOUT event=accounting_end rollout=0 mode=train groups=2 rows=2 dropped_groups=0 debt=0 resident_groups=1 queued_groups=0 interrupted_groups=1",
    ]);

    // tool-b stays resident and finishes between the steps: it is queued, not dropped, and step 1 takes it
    // first (its batch's first Group) before new ones.
    releases.get("tool-b")!();
    await vi.waitFor(() => expect(controller.queuedGroups).toBe(1));
    expect(controller.residentGroups).toBe(0);
    const step1 = await step(1);
    // Then one new Group (fast) completes the batch; the new tool-a Group stays resident for step 2.
    expect(
      step1.rows.map((row) => [row.prompt_index, row.partition, row.steps_lived, row.weight_version_lag]),
    ).toEqual([
      [2, 1, [0, 1], 1],
      [1, 1, [1], 0],
    ]);
    expect(launcher.launched).toHaveLength(5);
    expect(step1).toMatchObject({ debt: 0, residentGroups: 1 });
    expect(accounting("accounting_start")).toEqual([
      "AGENTIC ROLLOUT event=accounting_start rollout=0 mode=train sessions=2 groups=2 queued_groups=0 resident_groups=0",
      "AGENTIC ROLLOUT event=accounting_start rollout=1 mode=train sessions=2 groups=2 queued_groups=1 resident_groups=0",
    ]);
    await controller.interruptAll();
  });

  it("should over-sample in a synchronous step and interrupt the surplus Group at close (not a drop)", async () => {
    const { controller, accounting } = await setup({
      crossStep: {},
      tokenLatencyMs: 10,
      agent: async (context, gw) => {
        if ((context.input.metadata as { id: string }).id === "fast") {
          await vi.waitFor(() =>
            expect(gw.standin.calls.some((call) => call.path === "/generate")).toBe(true),
          );
        }
        await oneTurn(context);
      },
    });
    const step = await controller.runStep({
      rolloutId: 0,
      prompts: [prompt(0, "slow"), prompt(1, "fast")],
      groupsPerStep: 1,
      overSampling: 2,
      groupSize: 1,
      concurrency: 2,
      mode: "train",
    });
    expect(step.rows.map((row) => row.prompt_index)).toEqual([1]);
    expect(
      step.groups.map((group) => [group.prompt.index, group.kind === "dropped" ? group.reason : "exported"]),
    ).toEqual([
      [1, "exported"],
      [0, "interrupted"],
    ]);
    expect(step.metrics["rollout/dropped_groups"]).toBe(0);
    expect(controller.residentGroups).toBe(0);
    expect(accounting("accounting_end")).toEqual([
      "AGENTIC ROLLOUT event=accounting_end rollout=0 mode=train groups=1 rows=1 dropped_groups=0 debt=0 resident_groups=0 interrupted_groups=1",
    ]);
  });
});
