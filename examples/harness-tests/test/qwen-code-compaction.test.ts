import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TrainingRow } from "@relax/export";
import { describe, expect, it } from "vitest";
import { decodeGenerates, expectRowMatchesEngine, type HarnessRun, runHarness } from "./run-harness";

const agent = fileURLToPath(new URL("../../qwen-code/agent.mjs", import.meta.url));
const recorder = fileURLToPath(new URL("../scripts/record-requests.mjs", import.meta.url));
const node = JSON.stringify(process.execPath);

/** One HTTP request the CLI sent, as scripts/record-requests.mjs wrote it. */
interface RecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: { system?: unknown; messages: unknown[]; tools?: unknown[] };
}

/**
 * Runs the real Qwen Code 0.24.4 once under relax rollout with auto-compaction forced: a 40 000-token
 * window (`model.generationConfig.contextWindowSize`) and `context.autoCompactThreshold` 0.05, so the
 * tool-result turn (~17 000 prompt tokens) crosses the threshold. The CLI's requests are recorded on
 * their way to the gateway.
 */
async function runCompacting(
  authType: "anthropic" | "openai",
  policy: "record" | "train",
): Promise<{ run: HarnessRun; requests: RecordedRequest[] }> {
  const dir = mkdtempSync(join(tmpdir(), "relax-qwen-requests-"));
  // The agent runs under a pool uid: it must be able to write its recording here.
  chmodSync(dir, 0o777);
  try {
    const run = await runHarness({
      agentCommand: `${node} ${JSON.stringify(recorder)} ${node} ${JSON.stringify(agent)}`,
      flags: {
        agentEnv: [
          `QWEN_CODE_AUTH_TYPE=${authType}`,
          "QWEN_CODE_CONTEXT_WINDOW=40000",
          "QWEN_CODE_AUTO_COMPACT_THRESHOLD=0.05",
          `HARNESS_RECORD_DIR=${dir}`,
        ],
        ...(policy === "train" ? { requestClassPolicy: ["compaction=train"] } : {}),
      },
    });
    const requests = readdirSync(dir).flatMap((name) =>
      readFileSync(join(dir, name), "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as RecordedRequest),
    );
    return { run, requests };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The checks both protocols and both policies share: the run completed and every Group was exported. */
async function expectCompleted(run: HarnessRun, policy: "record" | "train"): Promise<void> {
  if (run.groupsDropped !== 0 || run.sessions.length === 0 || !run.sessions[0]!.fileWritten) {
    throw new Error(
      `did not complete: ${JSON.stringify(run.sessions)}\n${run.agentLogs.slice(-3000)}\n${(await decodeGenerates(run.generates)).slice(-3000)}`,
    );
  }
  expect([run.groupsExported, run.groupsDropped]).toEqual([1, 0]);
  expect(run.sessions[0]).toMatchObject({ exitCode: 0, fileWritten: true, answer: "Created hello.txt." });
  // main (the write_file call), the cache-sharing compression attempt (tools kept: the scripted policy
  // answers it with a tool call, which Qwen Code rejects as unusable), the dedicated summariser, main again
  // on the compacted history (the answer).
  expect(run.classified.map((line) => [line.request_class, line.harness, line.rule, line.policy])).toEqual([
    ["main", "qwen-code", "default", "train"],
    ["compaction", "qwen-code", "builtin:qwen-code-compression-prompt", policy],
    ["compaction", "qwen-code", "builtin:qwen-code-compression-prompt", policy],
    ["main", "qwen-code", "default", "train"],
  ]);
  expect(run.generates).toHaveLength(4);
}

/** The recorded compression requests: the cache-sharing one keeps the tools, the summariser has none. */
function expectCompressionRequests(requests: RecordedRequest[], path: string, userAgent: string): void {
  expect(requests.map((request) => [request.path, request.headers["user-agent"]])).toEqual(
    Array(4).fill([path, userAgent]),
  );
  const [, shared, summariser] = requests as [RecordedRequest, RecordedRequest, RecordedRequest];
  expect(shared.body.tools?.length).toBeGreaterThan(0);
  expect(JSON.stringify(shared.body.messages.at(-1))).toContain(
    "Do not call tools; tool execution is disabled for this request.",
  );
  expect(summariser.body.tools).toBeUndefined();
  expect(JSON.stringify(summariser.body.messages.at(-1))).toContain(
    "First, reason in your <analysis> block. Then, produce the <state_snapshot> XML.",
  );
}

/** compaction=train: two main segments and each compaction request its own row, credited like main. */
function expectSideRows(run: HarnessRun): void {
  const rows = run.rows;
  expect(rows.map((row) => [row.context_name, row.request_class ?? "main", row.num_turns])).toEqual([
    [null, "main", 1],
    [null, "main", 1],
    ["compaction:0", "compaction", 1],
    ["compaction:1", "compaction", 1],
  ]);
  // Every row is exactly what the engine received and produced (mask 1 on the generated ids only).
  for (const row of rows) expectRowMatchesEngine(expect, row, run.generates);
  const [first, restart, ...sides] = rows as [TrainingRow, TrainingRow, TrainingRow, TrainingRow];
  expect(restart.reward).toBe(1);
  for (const side of sides) {
    expect([side.reward, side.advantage, side.rollout_id, side.session_id]).toEqual([
      restart.reward,
      restart.advantage,
      restart.rollout_id,
      restart.session_id,
    ]);
    expect(side.parent_state_hash).toBe(first.state_hash);
  }
}

describe("real Qwen Code 0.24.4 with auto-compaction (stand-in engine with a scripted policy — not a model)", () => {
  it("anthropic: the compression requests are classified compaction, every Group is exported", async () => {
    const { run, requests } = await runCompacting("anthropic", "record");
    await expectCompleted(run, "record");
    // --auth-type anthropic on a non-Anthropic base URL: the user agent is Claude Code's.
    expectCompressionRequests(requests, "/agentic_api/v1/messages", "claude-cli/0.24.4 (external, cli)");
    // compaction is recorded: only the two main segments (before and after the compaction) are rows.
    expect(run.rows.map((row) => [row.context_name, row.request_class ?? "main"])).toEqual([
      [null, "main"],
      [null, "main"],
    ]);
    for (const row of run.rows) expectRowMatchesEngine(expect, row, run.generates);
  }, 120_000);

  it("anthropic, compaction=train: each compaction context is its own row with the main context's credit, tokens exact", async () => {
    const { run, requests } = await runCompacting("anthropic", "train");
    await expectCompleted(run, "train");
    expectCompressionRequests(requests, "/agentic_api/v1/messages", "claude-cli/0.24.4 (external, cli)");
    expectSideRows(run);
  }, 120_000);

  it("chat completions, compaction=train: the same rows", async () => {
    const { run, requests } = await runCompacting("openai", "train");
    await expectCompleted(run, "train");
    expectCompressionRequests(requests, "/agentic_api/v1/chat/completions", "QwenCode/0.24.4 (linux; x64)");
    expectSideRows(run);
  }, 120_000);
});
