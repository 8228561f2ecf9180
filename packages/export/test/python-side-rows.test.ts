/**
 * Runs `docs/relax_rows.py` on rows with a trained side context (a compaction request) and per-turn
 * rewards, written by this package from real forests. Needs `python3` on PATH (skipped with the reason
 * printed otherwise, as python-reader.test.ts).
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AssistantMessage, ChatMessage } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { createCharRenderer } from "@relax/forest/testing";
import { afterAll, describe, expect, it } from "vitest";
import { assertExportConfig } from "../src/config/validate-export-config";
import { exportGroup } from "../src/group/export-group";
import { writeTrainingRowsFile } from "../src/rows/training-row-jsonl";

const reader = fileURLToPath(new URL("../../../docs/relax_rows.py", import.meta.url));
const hasPython = spawnSync("python3", ["--version"]).status === 0;
if (!hasPython) console.warn("[python-side-rows] python3 is not on PATH: reported as skipped.");

const renderer = createCharRenderer();
const say = (content: string): AssistantMessage => ({ role: "assistant", content });
function commit(forest: SessionForest, messages: ChatMessage[], reply: AssistantMessage, metadata = {}) {
  const plan = forest.beginTurn({ messages, tools: [], chatTemplateKwargs: {} });
  const outputIds = renderer.renderResponse(reply);
  return forest.commitResponse(plan, {
    outputIds,
    logprobs: outputIds.map(() => -0.5),
    finishReason: "stop",
    message: reply,
    metadata,
  });
}

let directory = "";
afterAll(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe("docs/relax_rows.py on side-context rows with per-turn rewards", () => {
  it.runIf(hasPython)("should read request_class, parent_state_hash and place turn rewards", async () => {
    const forest = new SessionForest({ sessionId: "s0", renderer });
    const task: ChatMessage = { role: "user", content: "task" };
    const t0 = commit(forest, [task], say("a"));
    commit(forest, [task, say("a"), { role: "user", content: "r" }], say("b"));
    const compaction = new SessionForest({
      sessionId: "s0",
      renderer,
      metadata: { requestClass: "compaction" },
    });
    commit(compaction, [task, say("a"), { role: "user", content: "Summarize." }], say("sum"), {
      parentStateHash: t0.node.stateHash,
    });
    const outcome = await exportGroup({
      group: {
        groupIndex: 0,
        sessions: [
          {
            sessionId: "s0",
            forest,
            output: { kind: "implicit", reward: 1, turn_rewards: [0.25, null] },
            sideContexts: [{ requestClass: "compaction", forest: compaction }],
          },
        ],
      },
      config: assertExportConfig({ nSamplesPerPrompt: 1, agentWritesReward: true }),
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    directory = await mkdtemp(join(tmpdir(), "relax-side-rows-"));
    const path = join(directory, "rows.jsonl");
    await writeTrainingRowsFile({ path, rows: outcome.rows });
    const script = [
      "import json, sys",
      `sys.path.insert(0, ${JSON.stringify(dirname(reader))})`,
      "import relax_rows as r",
      `rows = r.read_rows(${JSON.stringify(path)})`,
      "print(json.dumps([[r.request_class(x), x.get('parent_state_hash'), x.get('turn_rewards'), r.turn_reward_tokens(x)] for x in rows]))",
    ].join("\n");
    const result = spawnSync("python3", ["-c", script], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    const [main, side] = JSON.parse(result.stdout) as unknown[][];
    // Main: "a<|im_end|>" (0-1), the 21-token observation, "b<|im_end|>" (23-24): 0.25 at position 1.
    const dense = new Array(25).fill(0);
    dense[1] = 0.25;
    expect(main).toEqual(["main", null, [0.25, null], dense]);
    expect(side).toEqual(["compaction", t0.node.stateHash, null, [0, 0, 0, 0]]);

    // A row whose per-turn rewards do not match its turns is refused with its line and field.
    const broken = { ...outcome.rows[0]!, turn_rewards: [1] };
    const badPath = join(directory, "bad.jsonl");
    await writeTrainingRowsFile({ path: badPath, rows: [broken as never] });
    const bad = spawnSync("python3", [reader, badPath], { encoding: "utf8" });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe("relax_rows: line 1 turn_rewards: has 1 entries, expected num_turns 2\n");
  });
});
