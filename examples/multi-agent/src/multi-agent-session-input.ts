import { parseArgs } from "node:util";
import type { SessionInput } from "@relax-examples/kit";
import { buildQuestionPrompt } from "./prompts";
import { readQuestions } from "./veloran-data";

/**
 * The session input when the agent runs alone: `--question "…" [--answer A]`, or `--index I` (a bundled
 * question; default 0).
 * @throws Error for an index outside the bundled questions.
 */
export function multiAgentInputFromArgs(argv: readonly string[]): SessionInput {
  const { values } = parseArgs({
    args: [...argv],
    options: { question: { type: "string" }, answer: { type: "string" }, index: { type: "string" } },
    allowPositionals: true,
  });
  if (values.question !== undefined) {
    return {
      messages: [{ role: "user", content: buildQuestionPrompt(values.question) }],
      metadata: { answers: values.answer === undefined ? [] : [values.answer] },
    };
  }
  const questions = readQuestions();
  const index = Number(values.index ?? "0");
  const row = questions[index];
  if (!Number.isInteger(index) || row === undefined)
    throw new Error(`--index must be 0..${questions.length - 1}`);
  return {
    messages: [{ role: "user", content: buildQuestionPrompt(row.question) }],
    metadata: { answers: row.answers, index },
  };
}
