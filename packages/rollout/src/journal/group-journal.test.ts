import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TrainingRow } from "@relax/export";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error";
import type { GroupResult } from "../group/run-group";
import {
  GROUP_JOURNAL_FILE,
  type JournalEntry,
  planStepResume,
  readGroupJournal,
  resetGroupJournal,
  StepRowsWriter,
} from "./group-journal";

const directories: string[] = [];
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "relax-journal-"));
  directories.push(directory);
  return directory;
}

/** A valid one-token row of Group `group`, sample `sample`. */
function row(group: number, sample: number): TrainingRow {
  return {
    tokens: [1, 2],
    loss_mask: [1],
    rollout_log_probs: [-0.5],
    advantage: 0.5,
    advantages: [0.5],
    reward: 1,
    reward_details: {},
    response_length: 1,
    prompt_length: 1,
    status: "completed",
    weight_versions: ["default"],
    weight_version_spans: [{ version: "default", start: 0, end: 1 }],
    abort_count: 0,
    rollout_id: `s${group}-${sample}`,
    group_index: group,
    prompt_index: group % 3,
    sample_index: sample,
    session_id: `s${group}-${sample}`,
    context_name: null,
    state_hash: "h",
    num_turns: 1,
    stop_reason: "stop",
    metadata: {},
  };
}

function exported(group: number): GroupResult {
  return {
    kind: "exported",
    groupId: `g-${group}`,
    prompt: { index: group % 3 },
    export: { kind: "exported", groupIndex: group, rows: [row(group, 0), row(group, 1)] } as never,
    sessions: [],
    outcomes: [],
  };
}

function dropped(group: number, reason: string): GroupResult {
  return {
    kind: "dropped",
    groupId: `g-${group}`,
    prompt: { index: group % 3 },
    reason,
    message: reason,
    sessions: [],
    outcomes: [],
  };
}

const hash = "sha256:abc";

describe("planStepResume", () => {
  const start: JournalEntry = {
    type: "step",
    rollout_id: 2,
    cursor: 8,
    rows_file: "/r.partial",
    offset: 100,
    config_hash: hash,
  };
  const group = (
    index: number,
    cursor: number,
    kind: "exported" | "dropped",
    offset: number,
    end: number,
  ): JournalEntry => ({
    type: "group",
    rollout_id: 2,
    group_index: index,
    cursor,
    prompt_index: cursor % 3,
    kind,
    reason: kind === "dropped" ? "agent_exit" : null,
    rows: kind === "exported" ? 2 : 0,
    offset,
    end,
  });

  it("should keep the finished Groups, re-run the prompts in flight and continue after the last one", () => {
    // Groups finished out of order: cursors 8, 10 (dropped) and 11; 9 was in flight at the kill.
    const entries = [
      start,
      group(0, 8, "exported", 100, 300),
      group(2, 10, "dropped", 300, 300),
      group(3, 11, "exported", 300, 500),
    ];
    expect(
      planStepResume({ entries, rolloutId: 2, configHash: hash, force: false, journalPath: "j" }),
    ).toEqual({
      rolloutId: 2,
      rowsFile: "/r.partial",
      offset: 100,
      end: 500,
      exported: 2,
      groups: 3,
      pendingCursors: [9],
      nextCursor: 12,
      firstGroupIndex: 4,
    });
  });

  it("should start a journaled step with no finished Group at its own cursor, and ignore other steps", () => {
    const older: JournalEntry = { ...start, rollout_id: 1 };
    const plan = planStepResume({
      entries: [older, start],
      rolloutId: 2,
      configHash: hash,
      force: false,
      journalPath: "j",
    });
    expect(plan).toMatchObject({
      end: 100,
      exported: 0,
      pendingCursors: [],
      nextCursor: 8,
      firstGroupIndex: 0,
    });
    expect(
      planStepResume({ entries: [older], rolloutId: 2, configHash: hash, force: false, journalPath: "j" }),
    ).toBeUndefined();
  });

  it("should refuse a step started with another configuration unless forced", () => {
    const entries = [start];
    expect(() =>
      planStepResume({ entries, rolloutId: 2, configHash: "sha256:other", force: false, journalPath: "j" }),
    ).toThrow(ConfigError);
    expect(
      planStepResume({ entries, rolloutId: 2, configHash: "sha256:other", force: true, journalPath: "j" }),
    ).toBeDefined();
  });
});

describe("readGroupJournal", () => {
  it("should ignore a torn last line and count it", async () => {
    const dir = await tempDir();
    const start = JSON.stringify({
      type: "step",
      rollout_id: 0,
      cursor: 0,
      rows_file: "/x",
      offset: 0,
      config_hash: hash,
    });
    await writeFile(join(dir, GROUP_JOURNAL_FILE), `${start}\n{"type":"group","rollout_id":0,"gro`);
    const journal = await readGroupJournal(dir);
    expect(journal.torn).toBe(1);
    expect(journal.entries).toEqual([JSON.parse(start)]);
    expect(await readGroupJournal(join(dir, "missing"))).toEqual({ entries: [], torn: 0 });
  });
});

describe("StepRowsWriter", () => {
  it("should append and journal each Group as it finishes, rename a per-step file when complete, and resume a killed step", async () => {
    const dir = await tempDir();
    const runDir = join(dir, "run");
    const path = join(dir, "rows_3.jsonl");
    const writer = await StepRowsWriter.open({
      rolloutId: 3,
      path,
      perStep: true,
      append: false,
      cursor: 12,
      runDir,
      configHash: hash,
    });
    expect(writer.file).toBe(`${path}.partial`);
    writer.add(exported(0), { cursor: 12, groupIndex: 0 });
    writer.add(dropped(1, "agent_exit"), { cursor: 13, groupIndex: 1 });
    writer.add(dropped(2, "interrupted"), { cursor: 14, groupIndex: 2 });
    await writer.flush();
    const size = (await stat(`${path}.partial`)).size;
    const journal = await readGroupJournal(runDir);
    expect(journal.entries).toEqual([
      { type: "step", rollout_id: 3, cursor: 12, rows_file: `${path}.partial`, offset: 0, config_hash: hash },
      {
        type: "group",
        rollout_id: 3,
        group_index: 0,
        cursor: 12,
        prompt_index: 0,
        kind: "exported",
        reason: null,
        rows: 2,
        offset: 0,
        end: size,
      },
      {
        type: "group",
        rollout_id: 3,
        group_index: 1,
        cursor: 13,
        prompt_index: 1,
        kind: "dropped",
        reason: "agent_exit",
        rows: 0,
        offset: size,
        end: size,
      },
    ]);

    // A crash: a Group's rows written but not journaled, then half a row.
    await writeFile(
      `${path}.partial`,
      `${await readFile(`${path}.partial`, "utf8")}${JSON.stringify(row(5, 0))}\n{"tokens":[1,`,
    );
    const resume = planStepResume({
      entries: journal.entries,
      rolloutId: 3,
      configHash: hash,
      force: false,
      journalPath: "j",
    })!;
    expect(resume).toMatchObject({
      end: size,
      exported: 1,
      pendingCursors: [],
      nextCursor: 14,
      firstGroupIndex: 2,
    });
    const resumed = await StepRowsWriter.open({
      rolloutId: 3,
      path,
      perStep: true,
      append: false,
      cursor: 12,
      runDir,
      configHash: hash,
      resume,
    });
    expect((await stat(`${path}.partial`)).size).toBe(size);
    expect((await StepRowsWriter.readResumedRows(resume, resumed.file)).map((r) => r.session_id)).toEqual([
      "s0-0",
      "s0-1",
    ]);
    resumed.add(exported(2), { cursor: 14, groupIndex: 2 });
    expect(await resumed.finish()).toBe(path);
    const lines = (await readFile(path, "utf8"))
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as TrainingRow).session_id);
    expect(lines).toEqual(["s0-0", "s0-1", "s2-0", "s2-1"]);
    await expect(stat(`${path}.partial`)).rejects.toThrow(/ENOENT/);
    await resetGroupJournal(runDir);
    expect(await readGroupJournal(runDir)).toEqual({ entries: [], torn: 0 });
  });

  it("should append to one file across steps, journaling where each step starts", async () => {
    const dir = await tempDir();
    const runDir = join(dir, "run");
    const path = join(dir, "rows.jsonl");
    const first = await StepRowsWriter.open({
      rolloutId: 0,
      path,
      perStep: false,
      append: false,
      cursor: 0,
      runDir,
      configHash: hash,
    });
    first.add(exported(0), { cursor: 0, groupIndex: 0 });
    expect(await first.finish()).toBe(path);
    const end = (await stat(path)).size;
    await resetGroupJournal(runDir);
    const second = await StepRowsWriter.open({
      rolloutId: 1,
      path,
      perStep: false,
      append: true,
      cursor: 1,
      runDir,
      configHash: hash,
    });
    second.add(exported(1), { cursor: 1, groupIndex: 0 });
    await second.finish();
    const journal = await readGroupJournal(runDir);
    expect(journal.entries[0]).toMatchObject({ type: "step", rollout_id: 1, rows_file: path, offset: end });
    expect((await readFile(path, "utf8")).trim().split("\n")).toHaveLength(4);
    // Without a run dir nothing is journaled, rows are still written per Group.
    const bare = await StepRowsWriter.open({
      rolloutId: 0,
      path: join(dir, "bare.jsonl"),
      perStep: false,
      append: false,
      cursor: 0,
      configHash: hash,
    });
    bare.add(exported(0), { cursor: 0, groupIndex: 0 });
    await bare.finish();
    expect(bare.written).toBe(2);
  });
});
