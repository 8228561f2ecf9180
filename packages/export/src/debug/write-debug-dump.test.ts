import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { conversation, FakeForest, qwen3 } from "../../test/fake-forest";
import { assertExportConfig } from "../config/validate-export-config";
import { exportGroup } from "../group/export-group";
import type { SessionExportInput } from "../group/group-export-outcome";
import type { DebugDump } from "./build-debug-dump";
import { debugDumpPath, writeDebugDump } from "./write-debug-dump";

const directories: string[] = [];
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

function session(id: string, branched = false): SessionExportInput {
  const conversations = [{ messages: conversation(`task ${id}`, "step one", "observation", "done") }];
  if (branched) conversations.push({ messages: conversation(`task ${id}`, "other try") });
  return {
    sessionId: id,
    forest: new FakeForest({ sessionId: id, conversations, finishReason: "length" }),
    output: { kind: "implicit", metadata: { difficulty: 3 }, reward: 1 },
  };
}

describe("writeDebugDump", () => {
  it("should substitute {rollout_id}, with the eval_ prefix in eval", () => {
    expect(
      debugDumpPath({ pathTemplate: "/d/{rollout_id}/rollout_{rollout_id}.json", rolloutStep: 12 }),
    ).toBe("/d/12/rollout_12.json");
    expect(debugDumpPath({ pathTemplate: "/d/{rollout_id}.json", rolloutStep: 3, mode: "eval" })).toBe(
      "/d/eval_3.json",
    );
  });

  it("should dump every sample with decoded text, metadata, turns, hashes and status", async () => {
    const config = assertExportConfig({ nSamplesPerPrompt: 2, agentWritesReward: true });
    const good = await exportGroup({
      group: { groupIndex: 0, sessions: [session("a"), session("b")] },
      config,
    });
    const dropped = await exportGroup({
      group: { groupIndex: 1, sessions: [session("c"), session("d", true)] },
      config,
    });
    expect(dropped.kind).toBe("dropped");
    const directory = await mkdtemp(join(tmpdir(), "relax-dump-"));
    directories.push(directory);
    const { decode } = qwen3();
    const path = await writeDebugDump({
      pathTemplate: join(directory, "dumps", "rollout_{rollout_id}.json"),
      rolloutStep: 7,
      outcomes: [good, dropped],
      decode,
    });
    expect(path).toBe(join(directory, "dumps", "rollout_7.json"));
    const dump = JSON.parse(await readFile(path, "utf8")) as DebugDump;
    expect(dump.rollout_id).toBe("7");
    expect(dump.mode).toBe("train");
    expect(dump.groups.map((group) => [group.group_index, group.outcome, group.reason])).toEqual([
      [0, "exported", undefined],
      [1, "dropped", "ambiguous_implicit_export"],
    ]);
    const sample = dump.groups[0]!.samples[0]!;
    expect(sample).toMatchObject({
      session_id: "a",
      rollout_id: "a:rollout",
      context_name: null,
      status: "truncated",
      prompt_text: "<|im_start|>user\ntask a<|im_end|>\n<|im_start|>assistant\n",
      response_text:
        "step one<|im_end|>\n<|im_start|>user\nobservation<|im_end|>\n<|im_start|>assistant\ndone<|im_end|>",
      metadata: { difficulty: 3 },
      exported_reward: 1,
      reward: 1,
      advantage: 0,
      turn_count: 2,
      abort_count: 0,
      request_kinds: ["fresh", "fresh"],
    });
    expect(sample.turns.map((turn) => [turn.turnIndex, turn.finishReason])).toEqual([
      [0, "stop"],
      [1, "length"],
    ]);
    expect(sample.turns[1]!.stateHash).toBe(sample.state_hash);
    expect(sample.turns[1]!.parentStateHash).not.toBe(sample.state_hash);
    // The planned session of the dropped Group is still in the dump, without credit.
    expect(dump.groups[1]!.samples.map((s) => [s.session_id, s.advantage])).toEqual([["c", null]]);
    expect(dump.groups[1]!.dropped_sessions).toEqual([
      {
        session_id: "d",
        reason: "ambiguous_implicit_export",
        message: expect.stringContaining("implicit export requires one committed leaf, found 2"),
      },
    ]);
  });
});
