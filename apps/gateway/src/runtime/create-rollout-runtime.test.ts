import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../config/load-config";
import type { GroupResult } from "../controller/run-group";
import type { Backend } from "../engine/start-backend";
import { createLogger } from "../report/create-logger";
import {
  createFakeLauncher,
  type FakeAgentContext,
  type FakeAgentResult,
} from "../testing/create-fake-launcher";
import { createRolloutRuntime } from "./create-rollout-runtime";

const started: Backend[] = [];
vi.mock("../engine/start-backend", async (importOriginal) => {
  const original = await importOriginal<typeof import("../engine/start-backend")>();
  return {
    ...original,
    startBackend: async (options: Parameters<typeof original.startBackend>[0]) => {
      const backend = await original.startBackend(options);
      started.push(backend);
      return backend;
    },
  };
});

const config = (overrides: Record<string, unknown> = {}) =>
  resolveConfig(
    {},
    {
      promptData: "test/fixtures/data.jsonl",
      evalPromptData: "test/fixtures/data.jsonl",
      agentCommand: "in-process fake agent",
      enginePolicy: "test/fixtures/fixed-policy.mjs",
      nSamplesPerPrompt: 2,
      rolloutBatchSize: 2,
      agentWritesReward: true,
      progress: false,
      logLevel: "silent",
      ...overrides,
    },
  );
const logger = createLogger({ level: "silent" });

const agent = async (context: FakeAgentContext): Promise<FakeAgentResult> => {
  const response = await context.chat({ model: "m", messages: context.input.messages });
  const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
  return {
    status: "succeeded",
    output: { kind: "implicit", reward: body.choices[0]!.message.content.endsWith("Answer 1.") ? 1 : 0 },
  };
};

afterEach(() => {
  started.length = 0;
});

describe("createRolloutRuntime", () => {
  it("should close the stand-in engine when the gateway port is busy", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(createRolloutRuntime(config({ port }), { logger })).rejects.toMatchObject({
        code: "EADDRINUSE",
      });
      expect(started).toHaveLength(1);
      expect(started[0]!.kind).toBe("standin");
      const [health] = await started[0]!.client.health();
      expect(health!.ok).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it("should start no backend when the dataset is bad", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-runtime-"));
    writeFileSync(join(dir, "bad.jsonl"), '{"prompt": "ok"}\n{not json\n');
    await expect(
      createRolloutRuntime(config({ promptData: join(dir, "bad.jsonl") }), { logger }),
    ).rejects.toThrow(`${join(dir, "bad.jsonl")}:2:`);
    expect(started).toHaveLength(0);
  });

  it("should run one step at a time, hand each Group's rows to onGroup, and continue at the cursor", async () => {
    const launcher = createFakeLauncher({ agent });
    const runtime = await createRolloutRuntime(config(), { logger, launchAgent: launcher.launch });
    try {
      expect(runtime.baseUrl).toBe(`http://127.0.0.1:${runtime.port}/agentic_api/`);
      expect(runtime.backend.kind).toBe("standin");
      expect(runtime.engine).toBe(runtime.backend.client);
      expect(runtime.prompts.map((prompt) => prompt.metadata)).toEqual([
        { id: "a" },
        { id: "b" },
        { id: "c" },
      ]);
      const health = await fetch(new URL("health", runtime.baseUrl));
      expect(await health.json()).toMatchObject({ status: "ok", backend: "standin", sessions: 0 });

      const groups: GroupResult[] = [];
      const step = await runtime.runStep({
        rolloutId: 0,
        mode: "train",
        onGroup: (result) => groups.push(result),
      });
      expect(groups.map((group) => group.kind)).toEqual(["exported", "exported"]);
      expect(groups.flatMap((group) => (group.kind === "exported" ? group.export.rows : [])).length).toBe(4);
      expect(step.rows.map((row) => row.reward)).toEqual([1, 1, 1, 1]);
      expect(runtime.cursor).toBe(2);
      expect(launcher.launched[0]!.baseUrl).toBe(runtime.baseUrl);

      runtime.cursor = 1;
      const next = await runtime.runStep({ rolloutId: 1, mode: "train", groups: 1 });
      expect(next.groups.map((group) => group.prompt.index)).toEqual([1]);
      expect(runtime.cursor).toBe(2);

      const evaluation = await runtime.runStep({ rolloutId: 0, mode: "eval" });
      expect(evaluation.groups.map((group) => [group.kind, group.groupId.startsWith("eval-")])).toEqual([
        ["exported", true],
        ["exported", true],
        ["exported", true],
      ]);
      expect(launcher.launched.at(-1)!.rolloutMode).toBe("eval");
      expect(runtime.reporter.counters).toMatchObject({ groupsExported: 3, evalGroupsExported: 3 });
    } finally {
      await runtime.close();
    }
    await expect(fetch(new URL("health", runtime.baseUrl))).rejects.toThrow();
    const [health] = await runtime.engine.health();
    expect(health!.ok).toBe(false);
    await runtime[Symbol.asyncDispose]();
  });
});
