import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createLogger, type GroupResult, UnknownEvalDatasetError } from "@relax/rollout";
import { createFakeLauncher, type FakeAgentContext, type FakeAgentResult } from "@relax/rollout/testing";
import { startStandin } from "@relax/standin";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../config/load-config";
import type { Backend } from "../engine/start-backend";
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
      // Two shards whatever the machine's cores (the default, auto, is one per core).
      gatewayShards: 2,
      ...overrides,
    },
  );
const logger = createLogger({ level: "silent" });
/** The stand-in engine (not a model), injected as the relax CLI does. */
const standin = { start: startStandin };

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
      await expect(createRolloutRuntime(config({ port }), { logger, standin })).rejects.toMatchObject({
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
      createRolloutRuntime(config({ promptData: join(dir, "bad.jsonl") }), { logger, standin }),
    ).rejects.toThrow(`${join(dir, "bad.jsonl")}:2:`);
    expect(started).toHaveLength(0);
  });

  it("should run one step at a time, hand each Group's rows to onGroup, and continue at the cursor", async () => {
    const launcher = createFakeLauncher({ agent });
    const runtime = await createRolloutRuntime(config(), { logger, standin, launchAgent: launcher.launch });
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
      // Each agent is pointed at its Group's shard, not at the controller's port.
      const shardUrls = runtime.shards!.status().map((shard) => shard.url);
      expect(shardUrls).toHaveLength(2);
      expect(shardUrls).toContain(launcher.launched[0]!.baseUrl);
      expect(launcher.launched[0]!.baseUrl).not.toBe(runtime.baseUrl);

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

  it("should run eval datasets one after another, each with its own metric prefix, media read as in train", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-runtime-evals-"));
    // A 1×1 PNG.
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
      "base64",
    );
    writeFileSync(join(dir, "cat.png"), png);
    writeFileSync(
      join(dir, "pictures.jsonl"),
      [
        { prompt: "<image> What is drawn?", metadata: { id: "p0" }, images: [join(dir, "cat.png")] },
        { prompt: "Count the <image>", metadata: { id: "p1" }, images: join(dir, "cat.png") },
      ]
        .map((row) => JSON.stringify(row))
        .join("\n"),
    );
    const inputs: unknown[] = [];
    const launcher = createFakeLauncher({
      agent: (context) => {
        inputs.push(context.input.messages);
        // The engine takes no media yet: an agent of the picture dataset asks in text.
        const text = JSON.stringify(context.input.messages).includes("data:image/")
          ? { ...context, input: { ...context.input, messages: [{ role: "user", content: "Describe it." }] } }
          : context;
        return agent(text);
      },
    });
    const runtime = await createRolloutRuntime(
      config({
        evalPromptData: ["pictures", join(dir, "pictures.jsonl"), "math", "test/fixtures/data.jsonl"],
        multimodalKeys: { image: "images" },
        evalInterval: 2,
      }),
      { logger, standin, launchAgent: launcher.launch },
    );
    try {
      expect(runtime.evalDatasets.map((dataset) => [dataset.name, dataset.prompts.length])).toEqual([
        ["pictures", 2],
        ["math", 3],
      ]);
      expect(runtime.evalDatasets[0]!.prompts.map((prompt) => prompt.media)).toEqual([
        { image: [join(dir, "cat.png")] },
        { image: [join(dir, "cat.png")] },
      ]);
      expect(runtime.evalPrompts).toBe(runtime.evalDatasets[0]!.prompts);
      expect([0, 1, 2, 3].map((k) => runtime.evalDue(k))).toEqual([false, true, false, true]);

      const seen: Array<[string, string]> = [];
      const runs = await runtime.runEvals({
        rolloutId: 2,
        onGroup: (dataset, result) => seen.push([dataset, String(result.prompt.metadata?.id)]),
        onDataset: (run) => seen.push([run.dataset, `end ${run.step.rows.length} rows`]),
      });
      expect(runs.map((run) => [run.dataset, run.step.mode, run.step.rolloutId, run.step.dataset])).toEqual([
        ["pictures", "eval", 2, "pictures"],
        ["math", "eval", 2, "math"],
      ]);
      // One after another: every Group of the first dataset finished before the second started.
      expect(seen.slice(0, 2).map(([dataset]) => dataset)).toEqual(["pictures", "pictures"]);
      expect(seen[2]).toEqual(["pictures", "end 2 rows"]);
      expect(seen.slice(3, 6).map(([dataset]) => dataset)).toEqual(["math", "math", "math"]);
      expect(seen[6]).toEqual(["math", "end 3 rows"]);
      expect(
        seen
          .slice(3, 6)
          .map(([, id]) => id)
          .sort(),
      ).toEqual(["a", "b", "c"]);
      // The eval sessions of the media dataset got the image in place of <image>.
      // The launcher re-encodes the dataset image as an RGB PNG data URI (1×1, so a few dozen bytes).
      expect(JSON.stringify(inputs[0])).toMatch(
        /"image_url":\{"url":"data:image\/png;base64,iVBORw0KGgo[A-Za-z0-9+/=]+"\}/,
      );
      expect(JSON.stringify(inputs.at(-1))).not.toContain("data:image/png");
      expect(launcher.launched.map((launch) => launch.rolloutMode)).toEqual(Array(5).fill("eval"));
      expect(runs[0]!.step.metrics).toMatchObject({
        "eval/pictures/rollout/raw_reward": 1,
        "eval/pictures/rollout/rows": 2,
        "eval/pictures/rollout/dropped_groups": 0,
      });
      expect(runs[1]!.step.metrics).toMatchObject({
        "eval/math/rollout/raw_reward": 1,
        "eval/math/rollout/rows": 3,
      });
      for (const run of runs) {
        expect(Object.keys(run.step.metrics).every((key) => key.startsWith(`eval/${run.dataset}/`))).toBe(
          true,
        );
        expect(run.step.rows.every((row) => row.advantage === 0)).toBe(true);
      }
      expect(runtime.reporter.counters).toMatchObject({ groupsExported: 0, evalGroupsExported: 5 });

      const only = await runtime.runEvals({ rolloutId: 4, datasets: ["math"] });
      expect(only.map((run) => [run.dataset, run.step.rows.length])).toEqual([["math", 3]]);
      const single = await runtime.runStep({ rolloutId: 4, mode: "eval", dataset: "pictures", groups: 1 });
      expect(single.groups.map((group) => group.prompt.metadata)).toEqual([{ id: "p0" }]);

      const launchedBefore = launcher.launched.length;
      const unknown = runtime.runEvals({ rolloutId: 5, datasets: ["math", "aime"] });
      await expect(unknown).rejects.toThrow('unknown eval dataset(s) "aime"; known: pictures, math');
      await expect(unknown).rejects.toSatisfy((error) => UnknownEvalDatasetError.isInstance(error));
      await expect(runtime.runEvals({ rolloutId: 5, datasets: ["math", "math"] })).rejects.toThrow(
        "eval dataset(s) named more than once: math",
      );
      await expect(runtime.runStep({ rolloutId: 5, mode: "eval", dataset: "aime" })).rejects.toThrow(
        'unknown eval dataset(s) "aime"',
      );
      expect(launcher.launched.length).toBe(launchedBefore);
    } finally {
      await runtime.close();
    }
  });

  it("should refuse an empty eval dataset before any backend starts, and be due never without an interval", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-runtime-evals-"));
    writeFileSync(join(dir, "empty.jsonl"), "\n");
    await expect(
      createRolloutRuntime(config({ evalPromptData: ["empty", join(dir, "empty.jsonl")] }), {
        logger,
        standin,
      }),
    ).rejects.toThrow(`--eval-prompt-data empty ${join(dir, "empty.jsonl")}: the dataset is empty`);
    expect(started).toHaveLength(0);

    const runtime = await createRolloutRuntime(config({ evalPromptData: undefined }), { logger, standin });
    try {
      expect(runtime.evalDatasets).toEqual([]);
      expect(runtime.evalPrompts).toEqual([]);
      expect(runtime.evalDue(0)).toBe(false);
      expect(await runtime.runEvals({ rolloutId: 0 })).toEqual([]);
    } finally {
      await runtime.close();
    }
  });

  it("should WARN once per run for an unhonoured contract field (--no-honor-response-format), and log and count every refusal", async () => {
    const records: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString("utf8").split("\n"))
          if (line !== "") records.push(JSON.parse(line));
        callback();
      },
    });
    const warnLogger = createLogger({ level: "warn", format: "json", destination });
    const launcher = createFakeLauncher({
      agent: async (context) => {
        const refused = await context.chat({ model: "m", messages: [{ role: "robot", content: "x" }] });
        await refused.text();
        const response = await context.chat({
          model: "m",
          messages: context.input.messages,
          response_format: { type: "json_object" },
        });
        await response.text();
        return { status: "succeeded", output: { kind: "implicit", reward: 1 } };
      },
    });
    const runtime = await createRolloutRuntime(config({ honorResponseFormat: false }), {
      logger: warnLogger,
      standin,
      launchAgent: launcher.launch,
    });
    try {
      await runtime.runStep({ rolloutId: 0, mode: "train", groups: 1 });
      expect(runtime.reporter.counters.contractChanges).toEqual(new Map([["response_format", 2]]));
      expect(runtime.reporter.counters.refusals).toEqual(new Map([["400", 2]]));
      const contract = records.filter((record) => record.path === "response_format");
      expect(contract.map((record) => [record.level, record.msg])).toEqual([
        [
          40,
          'response_format is not honoured: the reply is not constrained to "json_object" (logged once per run; --no-honor-response-format is set: JSON schemas are not passed to SGLang)',
        ],
      ]);
      const refusals = records.filter((record) => String(record.msg).startsWith("request refused"));
      expect(refusals).toHaveLength(2);
      expect(refusals[0]).toMatchObject({
        level: 40,
        status: 400,
        path: "/agentic_api/chat/completions",
        group: expect.stringMatching(/^g0-0-/),
        session: expect.stringMatching(/^g0-0-\w+\.s\d$/),
        msg: 'request refused: 400 messages[0].role: unsupported role "robot"; expected "system", "user", "assistant", "tool" or "developer"',
      });
    } finally {
      await runtime.close();
    }
  });

  it("should neither log nor count response_format by default, since it is passed to SGLang", async () => {
    const records: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString("utf8").split("\n"))
          if (line !== "") records.push(JSON.parse(line));
        callback();
      },
    });
    const launcher = createFakeLauncher({
      agent: async (context) => {
        const response = await context.chat({
          model: "m",
          messages: context.input.messages,
          response_format: { type: "json_object" },
          tool_choice: "none",
        });
        await response.text();
        return { status: "succeeded", output: { kind: "implicit", reward: 1 } };
      },
    });
    const runtime = await createRolloutRuntime(config(), {
      logger: createLogger({ level: "debug", format: "json", destination }),
      standin,
      launchAgent: launcher.launch,
    });
    try {
      await runtime.runStep({ rolloutId: 0, mode: "train", groups: 1 });
      expect(runtime.reporter.counters.contractChanges).toEqual(new Map([["tool_choice", 2]]));
      expect(
        records
          .filter((record) => Number(record.level) >= 40 && record.path !== undefined)
          .map((record) => [record.path, record.msg]),
      ).toEqual([
        [
          "tool_choice",
          'tool_choice is not honoured: tool_choice "none" is treated as "auto", except that the reply is constrained to the response format alone (no tool call) (logged once per run)',
        ],
      ]);
      // Not even at DEBUG: no line says response_format is not honoured.
      expect(records.filter((record) => JSON.stringify(record).includes("response_format"))).toEqual([]);
    } finally {
      await runtime.close();
    }
  });
});
