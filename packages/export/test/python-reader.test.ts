/**
 * Runs `docs/relax_rows.py` (the stdlib-only Python reader) on rows written by this package. Needs
 * `python3` on PATH; without it the tests are reported as skipped and the reason is printed.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertExportConfig } from "../src/config/validate-export-config";
import { exportGroup } from "../src/group/export-group";
import type { TrainingRow } from "../src/rows/training-row";
import {
  formatTrainingRowsJsonl,
  serializeTrainingRow,
  writeTrainingRowsFile,
} from "../src/rows/training-row-jsonl";
import { conversation, FakeForest } from "./fake-forest";

const reader = fileURLToPath(new URL("../../../docs/relax_rows.py", import.meta.url));

function probe(args: string[]): boolean {
  const result = spawnSync("python3", args, { encoding: "utf8" });
  return result.status === 0;
}
const hasPython = probe(["--version"]);
const hasNumpy = hasPython && probe(["-c", "import numpy"]);
if (!hasPython) {
  console.warn(
    "[python-reader] python3 is not on PATH: the docs/relax_rows.py tests are reported as skipped.",
  );
} else if (!hasNumpy) {
  console.warn(
    "[python-reader] NumPy is not importable by python3: the to_numpy test is reported as skipped.",
  );
}

function runReader(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync("python3", [reader, ...args], { encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

let directory = "";
let rows: TrainingRow[] = [];
let path = "";

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "relax-python-reader-"));
  const sessions = ["a", "b", "c", "d"].map((id, i) => ({
    sessionId: id,
    forest: new FakeForest({
      sessionId: id,
      conversations: [{ messages: conversation(`task ${id} ✓`, "step", "more", `answer ${i}`) }],
    }),
    output: { kind: "implicit" as const, metadata: { i }, reward: i % 2 },
  }));
  const outcome = await exportGroup({
    group: { groupIndex: 0, sessions },
    config: assertExportConfig({ nSamplesPerPrompt: 4, agentWritesReward: true }),
  });
  if (outcome.kind !== "exported") throw new Error(outcome.message);
  rows = outcome.rows;
  path = join(directory, "rows.jsonl");
  await writeTrainingRowsFile({ path, rows });
});

afterAll(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

function expectedSummary(numpy: boolean) {
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  return {
    rows: rows.length,
    sessions: 4,
    groups: 1,
    rollout_ids: 4,
    response_tokens: sum(rows.map((row) => row.response_length)),
    loss_tokens: sum(rows.map((row) => sum(row.loss_mask))),
    token_sum: sum(rows.map((row) => sum(row.tokens))),
    advantages: rows.map((row) => row.advantage),
    rewards: [0, 1, 0, 1],
    context_names: [null, null, null, null],
    images: 0,
    image_tokens: 0,
    numpy,
  };
}

describe("docs/relax_rows.py", () => {
  it.runIf(hasPython)("should read the rows with the standard library and agree on every total", () => {
    const result = runReader([path]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const summary = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject(expectedSummary(false));
    const advantageSum = rows.flatMap((row) => row.advantages).reduce((a, b) => a + b, 0);
    expect(summary.advantage_sum as number).toBeCloseTo(advantageSum, 9);
    expect(summary.logprob_sum as number).toBeCloseTo(
      rows.flatMap((row) => row.rollout_log_probs).reduce((a, b) => a + b, 0),
      9,
    );
  });

  it.runIf(hasNumpy)("should load the rows into NumPy arrays with the same totals", () => {
    const result = runReader([path, "--numpy"]);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject(expectedSummary(true));
  });

  it.runIf(hasPython)("should reject a bad row with its line and field", async () => {
    const broken = JSON.parse(JSON.stringify(rows[1])) as Record<string, unknown>;
    (broken.loss_mask as number[]).pop();
    const badPath = join(directory, "bad.jsonl");
    await writeFile(badPath, `${formatTrainingRowsJsonl([rows[0]!])}${JSON.stringify(broken)}\n`);
    const result = runReader([badPath]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `relax_rows: line 2 loss_mask: has ${rows[1]!.response_length - 1} entries, expected ${rows[1]!.response_length}\n`,
    );
  });
  it.runIf(hasPython)("should read reward_source as a column and reject an unknown kind", async () => {
    expect(rows[0]!.reward_source).toEqual({ kind: "agent_output", path: "output.reward" });
    const script = [
      "import json, sys",
      `sys.path.insert(0, ${JSON.stringify(dirname(reader))})`,
      "from relax_rows import read_rows, to_columns",
      `print(json.dumps(to_columns(read_rows(${JSON.stringify(path)}))["reward_source"]))`,
    ].join("\n");
    const result = spawnSync("python3", ["-c", script], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual(
      rows.map(() => ({ kind: "agent_output", path: "output.reward" })),
    );
    const badPath = join(directory, "bad-source.jsonl");
    await writeFile(badPath, `${JSON.stringify({ ...rows[0]!, reward_source: { kind: "oracle" } })}\n`);
    const bad = runReader([badPath]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe(
      "relax_rows: line 1 reward_source.kind: must be one of agent_output, reward_function, group_reward_function, none\n",
    );
  });
  it.runIf(hasPython)("should skip and report a torn last line, keeping every complete row", async () => {
    const complete = formatTrainingRowsJsonl(rows.slice(0, 2));
    const last = serializeTrainingRow(rows[2]!);
    // Cut inside the line (a crash during the append): no newline, not JSON.
    const tornPath = join(directory, "torn.jsonl");
    const cut = Buffer.from(last, "utf8").subarray(0, 37);
    await writeFile(tornPath, Buffer.concat([Buffer.from(complete, "utf8"), cut]));
    const result = runReader([tornPath]);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe(
      `relax_rows: warning: ${tornPath}: line 3 is torn (37 bytes, no final newline, not JSON: a crash during the write); skipped\n`,
    );
    const summary = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(summary.rows).toBe(2);
    expect(summary.torn_lines).toBe(1);
    expect(summary.rewards).toEqual([0, 1]);

    // A complete last row without its newline is a row, not a torn line.
    const unterminated = join(directory, "unterminated.jsonl");
    await writeFile(unterminated, `${complete}${last}`);
    const whole = runReader([unterminated]);
    expect(whole.stderr).toBe("");
    expect(JSON.parse(whole.stdout)).toMatchObject({ rows: 3, torn_lines: 0 });

    // A cut line followed by more rows is not a torn tail: still an error with its line.
    const middle = join(directory, "middle.jsonl");
    await writeFile(middle, `${cut.toString("latin1")}\n${complete}`);
    const bad = runReader([middle]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^relax_rows: line 1: not JSON/);
  });

  it.runIf(hasPython)("should hand the torn line to on_torn from the library API", async () => {
    const tornPath = join(directory, "torn-api.jsonl");
    await writeFile(tornPath, `${formatTrainingRowsJsonl([rows[0]!])}{"tokens": [1, 2`);
    const script = [
      "import sys",
      `sys.path.insert(0, ${JSON.stringify(dirname(reader))})`,
      "from relax_rows import read_rows_report",
      `rows, torn = read_rows_report(${JSON.stringify(tornPath)})`,
      "print(len(rows), torn.line, torn.size)",
    ].join("\n");
    const result = spawnSync("python3", ["-c", script], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("1 2 16\n");
  });

  it.runIf(hasPython)(
    "should read multimodal_train_inputs: grid rows and image bytes, inline or from a data: URI",
    async () => {
      const image = (extra: Record<string, unknown>) => ({
        type: "image",
        digest: "sha256:ab",
        format: "png",
        original_size: { height: 70, width: 98 },
        resized_size: { height: 56, width: 112 },
        image_grid_thw: [1, 4, 8],
        num_tokens: 8,
        ...extra,
      });
      const row = {
        ...rows[0]!,
        multimodal_train_inputs: [image({ source: "data:image/png;base64,AQID" }), image({ data: "BAUG" })],
      };
      const mmPath = join(directory, "mm.jsonl");
      await writeFile(mmPath, formatTrainingRowsJsonl([row as TrainingRow, rows[1]!]));
      const script = [
        "import json, sys",
        `sys.path.insert(0, ${JSON.stringify(join(reader, ".."))})`,
        "from relax_rows import read_rows, image_bytes, image_grid_thw, to_columns",
        `rows = read_rows(${JSON.stringify(mmPath)})`,
        "print(json.dumps([image_grid_thw(rows[0]), [list(image_bytes(e)) for e in rows[0]['multimodal_train_inputs']], image_grid_thw(rows[1]), to_columns(rows)['multimodal_train_inputs'][1]]))",
      ].join("\n");
      const result = spawnSync("python3", ["-c", script], { encoding: "utf8" });
      expect(result.stderr).toBe("");
      expect(JSON.parse(result.stdout)).toEqual([
        [
          [1, 4, 8],
          [1, 4, 8],
        ],
        [
          [1, 2, 3],
          [4, 5, 6],
        ],
        [],
        null,
      ]);
      const summary = JSON.parse(runReader([mmPath]).stdout) as Record<string, unknown>;
      expect([summary.images, summary.image_tokens]).toEqual([2, 16]);
      const bad = { ...row, multimodal_train_inputs: [image({ source: "x", image_grid_thw: [1, 4] })] };
      await writeFile(mmPath, `${JSON.stringify(bad)}\n`);
      expect(runReader([mmPath]).stderr).toBe(
        "relax_rows: line 1 multimodal_train_inputs[0].image_grid_thw: must be three positive integers [t, h, w]\n",
      );
    },
  );
});
