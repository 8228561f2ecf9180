/**
 * Makes `data/multi-agent-relax.jsonl` from `data/questions.jsonl`: one Relax prompt row per question,
 * `{"prompt": "<question>\n\n<instruction>", "metadata": {"answers": [...], "index": i}}`, read by
 * `relax rollout --prompt-data data/multi-agent-relax.jsonl --input-key prompt --metadata-key metadata`.
 *
 * Usage: `pnpm prepare-data`
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildQuestionPrompt } from "../src/prompts";
import { QUESTIONS_FILE, readQuestions } from "../src/veloran-data";

const rows = readQuestions().map((row, index) =>
  JSON.stringify({ prompt: buildQuestionPrompt(row.question), metadata: { answers: row.answers, index } }),
);
const file = join(QUESTIONS_FILE, "..", "multi-agent-relax.jsonl");
writeFileSync(file, rows.join("\n") + "\n");
console.log(`wrote ${rows.length} rows to ${file}`);
