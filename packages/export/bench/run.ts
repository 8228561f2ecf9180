/**
 * Throughput of the export step for one 64-session Group of 8k-token samples (prompt 1,024 tokens,
 * response 7,168 tokens over 4 turns with observation gaps): building rows (plan + GRPO + rows),
 * serialising them to JSONL, and parsing them back with and without schema validation.
 * Run: `pnpm bench`. Figures are printed, never asserted.
 * Cannot measure: writing to a real disk under load (rows are serialised in memory), or other row shapes.
 */
import type { ConversationState } from "@relax/chat";
import type { TrainingSample } from "@relax/forest";
import { Bench } from "tinybench";
import { assertExportConfig } from "../src/config/validate-export-config";
import { exportGroup } from "../src/group/export-group";
import type { SessionExportInput } from "../src/group/group-export-outcome";
import type { ExportableForest } from "../src/plan/exportable-forest";
import type { TrainingRow } from "../src/rows/training-row";
import { formatTrainingRowsJsonl, parseTrainingRowsJsonl } from "../src/rows/training-row-jsonl";

const SESSIONS = 64;
const PROMPT = 1024;
const RESPONSE = 7168;

function syntheticSample(index: number): TrainingSample {
  const tokens = Array.from({ length: PROMPT + RESPONSE }, (_, i) => (i * 7919 + index * 31) % 151_643);
  // Four turns of 1,536 generated tokens separated by 3 observations of 341/342 tokens.
  const lossMask = Array.from({ length: RESPONSE }, (_, i) => (i % 1792 < 1536 ? 1 : 0));
  const rolloutLogProbs = lossMask.map((mask, i) => (mask ? -((i % 997) + 1) / 1000 : 0));
  return {
    sessionId: `session-${index}`,
    rolloutId: `rollout-${index}`,
    stateHash: index.toString(16).padStart(64, "0"),
    tokens,
    promptLength: PROMPT,
    responseLength: RESPONSE,
    lossMask,
    rolloutLogProbs,
    status: "completed",
    weightVersions: ["7"],
    weightVersionSpans: [{ version: "7", start: 0, end: RESPONSE }],
    turnCount: 4,
    turns: [],
  };
}

const samples = Array.from({ length: SESSIONS }, (_, i) => syntheticSample(i));
const sessions: SessionExportInput[] = samples.map((sample, i) => {
  const forest: ExportableForest = {
    matchExportState: (_state: ConversationState) => ({ stateHash: sample.stateHash }),
    implicitExportLeaf: () => ({ stateHash: sample.stateHash }),
    buildSample: () => sample,
  };
  return {
    sessionId: sample.sessionId,
    forest,
    output: { kind: "implicit", metadata: { tool_calls: i % 5 }, reward: i % 3 === 0 ? 1 : 0 },
  };
});
const config = assertExportConfig({ nSamplesPerPrompt: SESSIONS, agentWritesReward: true });

const first = await exportGroup({ group: { groupIndex: 0, sessions }, config });
if (first.kind !== "exported") throw new Error(first.message);
const rows: TrainingRow[] = first.rows;
const jsonl = formatTrainingRowsJsonl(rows);
const megabytes = Buffer.byteLength(jsonl) / 1e6;

const bench = new Bench({
  name: `export of one ${SESSIONS}-session Group, ${PROMPT + RESPONSE} tokens per sample`,
  time: 2000,
});
bench
  .add("build rows (plan + GRPO + rows)", async () => {
    await exportGroup({ group: { groupIndex: 0, sessions }, config });
  })
  .add("serialise JSONL", () => {
    formatTrainingRowsJsonl(rows);
  })
  .add("build + serialise", async () => {
    const outcome = await exportGroup({ group: { groupIndex: 0, sessions }, config });
    if (outcome.kind === "exported") formatTrainingRowsJsonl(outcome.rows);
  })
  .add("parse JSONL (validated)", () => {
    parseTrainingRowsJsonl(jsonl);
  })
  .add("parse JSONL (unvalidated)", () => {
    parseTrainingRowsJsonl(jsonl, { validate: false });
  });
await bench.run();

console.log(bench.name);
console.log(`JSONL size: ${megabytes.toFixed(1)} MB for ${rows.length} rows`);
for (const task of bench.tasks) {
  const result = task.result;
  if (!result || !("latency" in result)) continue;
  const seconds = result.latency.mean / 1000;
  const throughput = task.name.includes("JSONL")
    ? `  ${(megabytes / seconds).toFixed(0).padStart(4)} MB/s of JSONL`
    : "";
  console.log(
    `${task.name.padEnd(34)} ${(SESSIONS / seconds).toFixed(0).padStart(7)} rows/s  ` +
      `${result.latency.mean.toFixed(1).padStart(8)} ms per Group${throughput}  (${result.latency.samplesCount} runs)`,
  );
}
