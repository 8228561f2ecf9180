import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { conversation, FakeForest, fakeLogprob, qwen3 } from "../../test/fake-forest";
import { RowParseError } from "../errors/row-parse-error";
import { buildTrainingRow } from "./build-training-row";
import { createTrainingRowJsonSchema, type TrainingRow, trainingRowSchema } from "./training-row";
import {
  formatTrainingRowsJsonl,
  parseTrainingRowsJsonl,
  readTrainingRowsFile,
  serializeTrainingRow,
  type TornRowLine,
  writeTrainingRowsFile,
} from "./training-row-jsonl";

/** Fields added after the first row format: optional, so rows from older writers still parse. */
const OPTIONAL_FIELDS = [
  "request_kinds",
  "request_class",
  "parent_state_hash",
  "turn_rewards",
  "turn_reward_positions",
  "segment_kind",
  "reward_source",
  "partition",
  "steps_lived",
  "weight_version_lag",
];

const tool = conversation("What is 17 * 23?", "Let me compute.", "tool result: 391", "17 * 23 = 391.");
tool[2] = { role: "tool", content: "391" };
const forest = new FakeForest({ sessionId: "sess-1", conversations: [{ messages: tool }] });
const sample = forest.buildSample(forest.implicitExportLeaf().stateHash);

function sampleRow(overrides: Partial<TrainingRow> = {}): TrainingRow {
  return {
    ...buildTrainingRow({
      sample,
      groupIndex: 3,
      promptIndex: 17,
      sampleIndex: 2,
      contextName: null,
      metadata: { task_success: 1, note: "ünïcødé ✓", nested: { list: [1, null, "x"] } },
      reward: 1,
      rewardDetails: { format: 0.5 },
      advantage: -0.8660237,
    }),
    ...overrides,
  };
}

describe("buildTrainingRow", () => {
  it("should write multimodal_train_inputs by source URL, or with inline bytes by the flag", () => {
    const url = "data:image/png;base64,AQID";
    const image = {
      type: "image" as const,
      digest: "sha256:ab",
      url,
      format: "png",
      width: 98,
      height: 70,
      resizedWidth: 112,
      resizedHeight: 56,
      gridThw: [1, 4, 8] as [number, number, number],
      tokens: 8,
    };
    const withImages = {
      ...sample,
      multimodalTrainInputs: [image, { ...image, url: "https://example.com/z.png" }],
    };
    const base = {
      sample: withImages,
      groupIndex: 0,
      promptIndex: 0,
      sampleIndex: 0,
      contextName: null,
      metadata: {},
      reward: 1,
      advantage: 1,
    };
    const wire = {
      type: "image",
      digest: "sha256:ab",
      format: "png",
      original_size: { height: 70, width: 98 },
      resized_size: { height: 56, width: 112 },
      image_grid_thw: [1, 4, 8],
      num_tokens: 8,
    };
    const reference = buildTrainingRow(base);
    expect(reference.multimodal_train_inputs).toEqual([
      { ...wire, source: url },
      { ...wire, source: "https://example.com/z.png" },
    ]);
    expect(trainingRowSchema.safeParse(reference).success).toBe(true);
    const inline = buildTrainingRow({ ...base, inlineImageBytes: true });
    expect(inline.multimodal_train_inputs).toEqual([
      { ...wire, data: "AQID" },
      { ...wire, source: "https://example.com/z.png" },
    ]);
    expect(Object.keys(inline.multimodal_train_inputs![0]!)).toEqual([
      "type",
      "digest",
      "data",
      "format",
      "original_size",
      "resized_size",
      "image_grid_thw",
      "num_tokens",
    ]);
    expect(buildTrainingRow({ ...base, sample })).not.toHaveProperty("multimodal_train_inputs");
  });

  it("should lay out a multi-turn sample with observation tokens masked and credit only on generated tokens", () => {
    const { encode } = qwen3();
    const first = encode("Let me compute.<|im_end|>");
    const observation = encode("\n<|im_start|>tool\n391<|im_end|>\n<|im_start|>assistant\n");
    const second = encode("17 * 23 = 391.<|im_end|>");
    const row = sampleRow();
    expect(row.prompt_length).toBe(
      encode("<|im_start|>user\nWhat is 17 * 23?<|im_end|>\n<|im_start|>assistant\n").length,
    );
    expect(row.tokens.slice(row.prompt_length)).toEqual([...first, ...observation, ...second]);
    expect(row.loss_mask).toEqual([
      ...first.map(() => 1),
      ...observation.map(() => 0),
      ...second.map(() => 1),
    ]);
    expect(row.advantages).toEqual(row.loss_mask.map((mask) => (mask ? -0.8660237 : 0)));
    expect(row.rollout_log_probs[0]).toBe(fakeLogprob(first[0]!, 0));
    expect(row.rollout_log_probs[first.length]).toBe(0);
    expect(row.num_turns).toBe(2);
    expect(trainingRowSchema.safeParse(row).success).toBe(true);
  });

  it("should prefer a stop_reason from the export metadata", () => {
    expect(sampleRow().stop_reason).toBe("stop");
    const row = buildTrainingRow({
      sample,
      groupIndex: 0,
      promptIndex: 0,
      sampleIndex: 0,
      contextName: "main",
      metadata: { rollout_stop_reason: "tool_budget" },
      reward: null,
      advantage: 0,
    });
    expect(row.stop_reason).toBe("tool_budget");
  });

  it("should sum the turns' abortCount into abort_count and keep the response-relative version spans", () => {
    expect(sampleRow().abort_count).toBe(0);
    expect([sampleRow().prompt_index, sampleRow().sample_index]).toEqual([17, 2]);
    const [firstTurn, secondTurn] = sample.turns;
    const spans = [
      { version: "v1", start: 0, end: 2 },
      { version: "v2", start: 2, end: sample.responseLength },
    ];
    const paused = {
      ...sample,
      weightVersionSpans: spans,
      turns: [
        { ...firstTurn!, metadata: { requestId: "a", abortCount: 2 } },
        { ...secondTurn!, metadata: { requestId: "b", abortCount: 1 } },
      ],
    };
    const row = buildTrainingRow({
      sample: paused,
      groupIndex: 0,
      promptIndex: 0,
      sampleIndex: 0,
      contextName: null,
      metadata: {},
      reward: 1,
      advantage: 0,
    });
    expect(row.abort_count).toBe(3);
    expect(row.weight_version_spans).toEqual(spans);
    expect(trainingRowSchema.safeParse(row).success).toBe(true);
    const outside = trainingRowSchema.safeParse({
      ...row,
      weight_version_spans: [{ version: "v1", start: 1, end: row.response_length + 1 }],
    });
    expect(outside.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
      [
        "weight_version_spans.0",
        `[1, ${row.response_length + 1}) must be non-empty, in order and inside [0, ${row.response_length})`,
      ],
    ]);
  });

  it("should refuse a non-finite advantage or an inconsistent sample", () => {
    const base = {
      sample,
      groupIndex: 0,
      promptIndex: 0,
      sampleIndex: 0,
      contextName: null,
      metadata: {},
      reward: 1,
    };
    expect(() => buildTrainingRow({ ...base, advantage: Number.NaN })).toThrow(
      "advantage must be finite, got NaN",
    );
    expect(() => buildTrainingRow({ ...base, sample: { ...sample, lossMask: [1] }, advantage: 0 })).toThrow(
      /loss_mask \(1\) and rollout_log_probs \(\d+\) must have response_length = \d+ entries/,
    );
  });
});

describe("training-row JSONL", () => {
  it("should round-trip rows through JSONL exactly", () => {
    const rows = [
      sampleRow(),
      sampleRow({ context_name: "main", reward: null, group_index: 4, reward_details: {} }),
    ];
    const text = formatTrainingRowsJsonl(rows);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.split("\n")).toHaveLength(3);
    expect(parseTrainingRowsJsonl(text)).toEqual(rows);
    // Field order on the wire is the schema's; the export writes request_kinds, the controller adds the
    // cross-step fields; side contexts, per-turn rewards, reward_source (rows exported through exportGroup)
    // and images are carried only by rows that have them.
    expect(Object.keys(JSON.parse(text.split("\n")[0]!))).toEqual(
      Object.keys(trainingRowSchema.shape).filter(
        (key) => !OPTIONAL_FIELDS.slice(1).includes(key) && key !== "multimodal_train_inputs",
      ),
    );
    expect(rows[0]!.request_kinds).toEqual(["fresh", "fresh"]);
  });

  it.each<[string, (row: Record<string, unknown>) => void, string]>([
    ["a tokens/length mismatch", (row) => (row.prompt_length = 0), "line 2 tokens: has"],
    ["a loss mask value of 2", (row) => ((row.loss_mask as number[])[0] = 2), "line 2 loss_mask[0]:"],
    [
      "credit on an observation token",
      (row) => {
        const mask = row.loss_mask as number[];
        (row.advantages as number[])[mask.indexOf(0)] = 0.5;
      },
      "must be 0 where loss_mask is 0",
    ],
    ["a missing field", (row) => delete row.rollout_id, "line 2 rollout_id:"],
    ["an unknown status", (row) => (row.status = "ok"), "line 2 status:"],
  ])("should reject %s with the line and field", (_name, mutate, message) => {
    const broken = JSON.parse(JSON.stringify(sampleRow())) as Record<string, unknown>;
    mutate(broken);
    const text = `${JSON.stringify(sampleRow())}\n${JSON.stringify(broken)}\n`;
    expect(() => parseTrainingRowsJsonl(text)).toThrow(RowParseError);
    expect(() => parseTrainingRowsJsonl(text)).toThrow(message);
  });

  it("should serialise exactly like JSON.stringify, including per-token credit that is not a broadcast", () => {
    const broadcast = sampleRow();
    const negativeZero = sampleRow({ advantage: -0, advantages: sampleRow().advantages.map(() => -0) });
    const perToken = sampleRow({ advantages: sampleRow().loss_mask.map((mask, i) => (mask ? i / 7 : 0)) });
    const { metadata, ...rest } = sampleRow();
    const reordered = { metadata: { ...metadata, advantages: [1] }, ...rest } as TrainingRow;
    for (const row of [broadcast, negativeZero, perToken, reordered]) {
      expect(serializeTrainingRow(row)).toBe(JSON.stringify(row));
    }
  });

  it("should report a line that is not JSON", () => {
    try {
      parseTrainingRowsJsonl('\n{"tokens": [1,\n');
      expect.unreachable();
    } catch (error) {
      expect(RowParseError.isInstance(error) && [error.line, error.path]).toEqual([2, ""]);
    }
  });

  const directories: string[] = [];
  afterAll(async () => {
    for (const directory of directories) await rm(directory, { recursive: true, force: true });
  });

  it("should write, append and stream rows from a file", async () => {
    const directory = await mkdtemp(join(tmpdir(), "relax-rows-"));
    directories.push(directory);
    const path = join(directory, "nested", "rows.jsonl");
    await writeTrainingRowsFile({ path, rows: [sampleRow()] });
    await writeTrainingRowsFile({ path, rows: [sampleRow({ group_index: 9 })], append: true });
    const read: TrainingRow[] = [];
    for await (const row of readTrainingRowsFile(path)) read.push(row);
    expect(read.map((row) => row.group_index)).toEqual([3, 9]);
    expect(read[0]).toEqual(sampleRow());
  });

  it("should skip and report a torn last line, and still reject a bad complete one", async () => {
    const directory = await mkdtemp(join(tmpdir(), "relax-rows-"));
    directories.push(directory);
    const path = join(directory, "torn.jsonl");
    const whole = formatTrainingRowsJsonl([sampleRow(), sampleRow({ group_index: 9 })]);
    await writeFile(path, `${whole}${serializeTrainingRow(sampleRow({ group_index: 4 })).slice(0, 50)}`);
    const torn: TornRowLine[] = [];
    const read: TrainingRow[] = [];
    for await (const row of readTrainingRowsFile(path, { onTornLine: (line) => torn.push(line) }))
      read.push(row);
    expect(read.map((row) => row.group_index)).toEqual([3, 9]);
    expect(torn).toEqual([{ line: 3, length: 50, reason: expect.stringMatching(/JSON/) }]);

    // A last line that is complete JSON but not a row is an error, newline or not.
    const bad = join(directory, "bad.jsonl");
    await writeFile(bad, `${whole}{"tokens": []}`);
    const drain = async () => {
      for await (const _row of readTrainingRowsFile(bad, { onTornLine: () => {} })) {
        // reading
      }
    };
    await expect(drain()).rejects.toThrow(/^line 3 /);
    // A cut line with a newline after it (not the tail) is an error too.
    const middle = join(directory, "middle.jsonl");
    await writeFile(middle, `{"tokens": [1\n${whole}`);
    const drainMiddle = async () => {
      for await (const _row of readTrainingRowsFile(middle)) {
        // reading
      }
    };
    await expect(drainMiddle()).rejects.toThrow(RowParseError);
  });
});

describe("training-row JSON Schema", () => {
  it("should match the committed schema/training-row.schema.json (run `pnpm generate:schema`)", async () => {
    const committed = await readFile(
      fileURLToPath(new URL("../../schema/training-row.schema.json", import.meta.url)),
      "utf8",
    );
    expect(committed).toBe(`${JSON.stringify(createTrainingRowJsonSchema(), null, 2)}\n`);
  });

  it("should require every row field but the additive cross-step ones, and allow future ones", () => {
    const schema = createTrainingRowJsonSchema() as { required: string[]; additionalProperties?: unknown };
    expect(schema.required).toEqual(
      Object.keys(trainingRowSchema.shape).filter(
        (key) => !OPTIONAL_FIELDS.includes(key) && key !== "multimodal_train_inputs",
      ),
    );
    expect(Object.keys(trainingRowSchema.shape).slice(-OPTIONAL_FIELDS.length - 1)).toEqual([
      ...OPTIONAL_FIELDS,
      "multimodal_train_inputs",
    ]);
    expect(schema.additionalProperties).toBeUndefined();
  });
});

describe("training-row per-turn rewards and side contexts", () => {
  it("should accept aligned turn_rewards and refuse misaligned ones, naming the field", () => {
    const row = { ...sampleRow(), turn_rewards: [0.5, null], turn_reward_positions: [0, 1] };
    expect(row.num_turns).toBe(2);
    expect(
      trainingRowSchema.safeParse({ ...row, request_class: "compaction", parent_state_hash: "ab" }).success,
    ).toBe(true);
    const issues = (value: Record<string, unknown>) => {
      const parsed = trainingRowSchema.safeParse(value);
      return parsed.success
        ? []
        : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    };
    expect(issues({ ...row, turn_rewards: [1], turn_reward_positions: [0] })).toEqual([
      "turn_rewards: has 1 entries, expected num_turns = 2",
    ]);
    expect(issues({ ...row, turn_reward_positions: [0] })).toEqual([
      "turn_reward_positions: must have one entry per turn_rewards entry",
    ]);
    expect(issues({ ...row, turn_reward_positions: [0, row.response_length] })).toEqual([
      `turn_reward_positions.1: must be < response_length = ${row.response_length}`,
    ]);
  });
});
