/**
 * Makes the example's data files from the GSM8K test split:
 * - `data/gsm8k-test-300.jsonl`: the first N rows, byte for byte (MIT licence in `data/LICENSE`);
 * - `data/gsm8k-relax.jsonl`: one Relax prompt row per question,
 *   `{"prompt": "<question>\n\n<instruction>", "metadata": {"answer": "<final number>", "index": i}}`,
 *   read by `relax rollout --prompt-data data/gsm8k-relax.jsonl --input-key prompt --metadata-key metadata`.
 *
 * Usage: `pnpm prepare-data [--source ../../../shared/data/gsm8k/test.jsonl] [--count 300]`
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { GSM8K_DATA_FILE, gsm8kRowSchema, parseGsm8kSolution } from "../src/gsm8k-dataset";
import { buildGsm8kPrompt } from "../src/gsm8k-prompt";

const { values } = parseArgs({
  options: {
    source: {
      type: "string",
      default: fileURLToPath(new URL("../../../../shared/data/gsm8k/test.jsonl", import.meta.url)),
    },
    count: { type: "string", default: "300" },
  },
});
const count = Number(values.count);
const lines = readFileSync(values.source, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .slice(0, count);
const relaxRows = lines.map((line, index) => {
  const row = gsm8kRowSchema.parse(JSON.parse(line));
  return JSON.stringify({
    prompt: buildGsm8kPrompt(row.question),
    metadata: { answer: parseGsm8kSolution(row.answer).finalAnswer, index },
  });
});
writeFileSync(GSM8K_DATA_FILE, lines.join("\n") + "\n");
const relaxFile = fileURLToPath(new URL("../data/gsm8k-relax.jsonl", import.meta.url));
writeFileSync(relaxFile, relaxRows.join("\n") + "\n");
console.log(`wrote ${lines.length} rows to ${GSM8K_DATA_FILE} and ${relaxFile}`);
