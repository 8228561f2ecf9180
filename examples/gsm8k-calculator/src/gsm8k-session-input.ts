import { parseArgs } from "node:util";
import type { SessionInput } from "@relax-examples/kit";
import { parseGsm8kSolution, readGsm8kRows } from "./gsm8k-dataset";
import { buildGsm8kPrompt } from "./gsm8k-prompt";

/**
 * The session input when the agent runs alone, from its command line:
 * `--question "…" --answer N`, or `--index I` (a row of the bundled GSM8K sample; default 0).
 * @throws Error for an index outside the bundled rows.
 */
export function gsm8kInputFromArgs(argv: readonly string[]): SessionInput {
  const { values } = parseArgs({
    args: [...argv],
    options: { question: { type: "string" }, answer: { type: "string" }, index: { type: "string" } },
    allowPositionals: true,
  });
  if (values.question !== undefined) {
    return {
      messages: [{ role: "user", content: buildGsm8kPrompt(values.question) }],
      metadata: values.answer === undefined ? {} : { answer: values.answer },
    };
  }
  const index = Number(values.index ?? "0");
  const rows = readGsm8kRows();
  const row = rows[index];
  if (!Number.isInteger(index) || row === undefined) throw new Error(`--index must be 0..${rows.length - 1}`);
  return {
    messages: [{ role: "user", content: buildGsm8kPrompt(row.question) }],
    metadata: { answer: parseGsm8kSolution(row.answer).finalAnswer, index },
  };
}
